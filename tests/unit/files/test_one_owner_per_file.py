"""Each file format the gate reads or writes is parsed and serialised in one module.

The rule: a call that parses or writes CSV or JSON (``csv.reader``/``DictReader``/``writer``/
``DictWriter``, pandas' ``read_csv``/``read_table``/``to_csv``, numpy's ``loadtxt``/``genfromtxt``,
``json.load(s)``/``dump(s)``, ``gate.jsontext.loads``) appears only in a module listed in
:data:`OWNERS` for that kind (CSV or JSON), with the format it owns. So trials.csv is read and written only in
``gate/files/trial_log.py``, meta.json, analysis.json and calibration.json only in their modules
of ``gate/files/``; a second reader elsewhere fails here and has to call the owner instead.
"""

from __future__ import annotations

import ast

from tests.conftest import REPO_ROOT

GATE = REPO_ROOT / "gate"

# module (or folder, ending in "/") -> (csv and/or json, the format whose one reader or writer it holds)
OWNERS: dict[str, tuple[frozenset[str], str]] = {
    "gate/files/trial_log.py": (frozenset({"csv"}), "trials.csv (TrialLog writes, read_rows reads)"),
    "gate/files/run_meta.py": (frozenset({"json"}), "meta.json"),
    "gate/files/analysis_json.py": (frozenset({"json"}), "analysis.json"),
    "gate/files/calibration_json.py": (frozenset({"json"}), "calibration.json"),
    "gate/analysis/order.py": (frozenset({"csv"}), "OrderSage's tidy CSV (read_tidy), a third-party format"),
    "gate/commands/order_check.py": (
        frozenset({"json"}),
        "the order-check JSON (written by `order-check` only)",
    ),
    "gate/github/event.py": (frozenset({"json"}), "the GitHub event payload and the pr-info JSON"),
    "gate/history/changes.py": (frozenset({"json"}), "the change-point JSON of `history changes`"),
    "gate/history/store.py": (
        frozenset({"json"}),
        "the history store (JSON lines), and `loads` for the importers' github-action-benchmark, "
        "pytest-benchmark and asv files",
    ),
    "gate/adapters/": (
        frozenset({"json"}),
        "each framework's own output (one adapter per format), the Go listing cache",
    ),
    "gate/config/config_changes.py": (frozenset({"json"}), "JSON text of a configuration value in a message"),
    "gate/jsontext.py": (
        frozenset({"json"}),
        "the JSON parser with a nesting limit that the owners above call",
    ),
}

_CSV_CALLS = frozenset({"reader", "DictReader", "writer", "DictWriter", "Sniffer"})
_JSON_CALLS = frozenset({"load", "loads", "dump", "dumps"})
_ANY_OWNER_CALLS = frozenset({"read_csv", "read_table", "to_csv", "loadtxt", "genfromtxt"})


def parsing_calls(source: str) -> list[str]:
    """``csv|json name.attr:line`` of every CSV/JSON parsing or writing call in ``source`` (and
    ``from json/csv/pandas import ...`` of such a name, which would hide the call's module)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in (
            "json",
            "csv",
            "pandas",
            "numpy",
            "gate.jsontext",
        ):
            names = {a.name for a in node.names} & (_CSV_CALLS | _JSON_CALLS | _ANY_OWNER_CALLS)
            kind = "json" if "json" in node.module else "csv"
            found.extend(f"{kind} from {node.module} import {n}:{node.lineno}" for n in sorted(names))
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr, value = node.func.attr, node.func.value
        owner = value.id if isinstance(value, ast.Name) else "?"
        if (owner == "csv" and attr in _CSV_CALLS) or attr in _ANY_OWNER_CALLS:
            found.append(f"csv {owner}.{attr}:{node.lineno}")
        elif (owner == "json" and attr in _JSON_CALLS) or (owner == "jsontext" and attr == "loads"):
            found.append(f"json {owner}.{attr}:{node.lineno}")
    return found


def _owner(module: str) -> str | None:
    return next((o for o in OWNERS if module == o or (o.endswith("/") and module.startswith(o))), None)


def test_only_the_owner_of_a_format_parses_or_writes_it() -> None:
    strays: list[str] = []
    used: set[str] = set()
    for path in sorted(GATE.rglob("*.py")):
        module = path.relative_to(REPO_ROOT).as_posix()
        calls = parsing_calls(path.read_text(encoding="utf-8"))
        if not calls:
            continue
        owner = _owner(module)
        kinds = OWNERS[owner][0] if owner is not None else frozenset()
        strays.extend(f"{module} {call}" for call in calls if call.split()[0] not in kinds)
        if owner is not None:
            used.add(owner)
    assert not strays, (
        "CSV/JSON parsed or written outside the module that owns the format; call the owner "
        "(e.g. gate.files.trial_log.read_rows for trials.csv) or add a module to OWNERS for a new "
        f"format: {strays}"
    )
    assert set(OWNERS) == used, f"OWNERS lists modules that no longer parse anything: {set(OWNERS) - used}"


def test_the_scan_finds_a_second_reader() -> None:
    # What the rule catches: the spellings a second trials.csv or meta.json reader would use.
    source = """
import csv, json
import pandas as pd
from gate import jsontext
from pandas import read_csv
rows = list(csv.DictReader(open("trials.csv")))
frame = pd.read_csv("trials.csv", dtype=str)
meta = json.loads(open("meta.json").read())
doc = jsontext.loads("{}")
"""
    calls = parsing_calls(source)
    assert sorted(c.split(":")[0] for c in calls) == [
        "csv csv.DictReader",
        "csv from pandas import read_csv",
        "csv pd.read_csv",
        "json json.loads",
        "json jsontext.loads",
    ]
    assert _owner("gate/rounds/planner.py") is None and _owner("gate/adapters/gotest.py") == "gate/adapters/"
