"""Warning codes (gate/warning_codes.py): one member per code, each with its category.

A code reaches analysis.json, meta.json or calibration.json only as a WarningCode member, so no
code is written without a category (the reader would find it under "Other warnings", or worse, a
data problem under "Machine preparation"). Older files spelled two codes with hyphens; they are
read as today's spelling and shown under the same category.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from gate.analysis.load import load_trials
from gate.calibration.dataset import normalise, read_tables
from gate.model import warning
from gate.warning_codes import WarningCategory, WarningCode, lookup

GATE = Path(__file__).resolve().parents[2] / "gate"


def _is_member(node: ast.expr) -> bool:
    """``WarningCode.NAME`` or ``WarningCode.NAME.value``, with NAME a member."""
    if isinstance(node, ast.Attribute) and node.attr == "value":
        node = node.value
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "WarningCode"
        and node.attr in WarningCode.__members__
    )


def _written_codes(tree: ast.AST) -> list[ast.expr]:
    """The expressions that give a warning its code: the first argument of ``warning(…)`` and the
    value of a ``"code"`` key in a dict literal."""
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "warning":
            if node.args:
                out.append(node.args[0])
        elif isinstance(node, ast.Dict):
            out += [
                v
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and k.value == "code"
            ]
    return out


# Where a code is passed on rather than chosen: the constructor itself and analysis.json's suite
# similarity warnings as read back (one without a code is a dissimilarity; gate/render/view.py
# decided it before).
PASSED_ON = {
    ("model.py", "code.value"),
    ("files/analysis_model.py", "w.get('code') or WarningCode.DISSIMILAR.value"),
}


def _producers() -> list[Path]:
    # the renderer only reads codes (gate/render/view.py names WarningCode.DISSIMILAR itself)
    return sorted(p for p in GATE.rglob("*.py") if "render" not in p.relative_to(GATE).parts)


def test_every_code_written_in_gate_is_a_member() -> None:
    """No string literal (or any other expression) as a code: a member, or a variable that mypy
    checks is one (warning() takes a WarningCode)."""
    loose = []
    found = 0
    for path in _producers():
        for node in _written_codes(ast.parse(path.read_text(encoding="utf-8"))):
            found += 1
            where, expr = str(path.relative_to(GATE)), ast.unparse(node)
            if not (_is_member(node) or isinstance(node, ast.Name) or (where, expr) in PASSED_ON):
                loose.append(f"{where}:{node.lineno}: {expr}")
    assert found > 50  # the scan sees the producers (analysis, load, run, calibrate, environment, …)
    assert loose == [], f"warning codes not taken from gate.warning_codes.WarningCode: {loose}"


def test_the_scan_catches_a_string_code() -> None:
    tree = ast.parse('warning("new_code", "m", "a")\nx = {"code": "other", "message": "m"}')
    assert [_is_member(n) for n in _written_codes(tree)] == [False, False]
    tree = ast.parse('warning(WarningCode.GAPS, "m", "a")\nx = {"code": WarningCode.LOAD.value}')
    assert [_is_member(n) for n in _written_codes(tree)] == [True, True]


def test_warning_refuses_a_plain_string_and_names_the_fix() -> None:
    with pytest.raises(TypeError, match=r"add it to gate/warning_codes\.py"):
        warning("full_too_small", "m", "a")  # type: ignore[arg-type]
    w = warning(WarningCode.FULL_TOO_SMALL, "m", "a")
    # stored as the plain string: analysis.json stays what it was
    assert (
        type(w["code"]) is str
        and json.dumps(w) == '{"code": "full_too_small", "message": "m", "action": "a"}'
    )


def test_one_spelling_per_code() -> None:
    values = [c.value for c in WarningCode]
    assert len({v.replace("-", "_") for v in values}) == len(values)
    assert all(isinstance(c.category, WarningCategory) for c in WarningCode)


def test_an_unknown_code_is_kept_as_it_is() -> None:
    assert lookup("something-else") is None and lookup(" GAPS ") is WarningCode.GAPS


def test_analyze_and_calibrate_report_a_cut_off_row_with_one_code(tmp_path: Path) -> None:
    log = tmp_path / "trials.csv"
    log.write_text(
        "benchmark,version,suite_run,iteration,measurement,value,status,config\n"
        "a,main,1,1,1,1.5,ok,full\na,main,1,1,2,1.6,ok,full\na,main,1,1,3,1.7,o"
    )
    analyze = [w["code"] for w in load_trials([log]).warnings]
    calibrate = [w["code"] for w in normalise(read_tables([str(log)])).warnings]
    assert analyze == calibrate == [WarningCode.CUT_OFF_ROW.value] == ["cut_off_row"]
