"""Every reader of a setting agrees on its domain: the same good and bad values go through
``.ordertrap.toml``, the command line (argparse and the verb's own check before any work), the
action inputs and meta.json, and each must accept exactly the good ones (docs/development.md,
"One schema layer"; the domains: gate/files/settings.py).

The readers are reached through their public entry points, so the table states what a user
meets, whichever module holds the rule. A value is given twice: typed as a TOML or JSON file
holds it, and as the text a flag or an input carries (``SKIP`` where one of them has no such form).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gate.action.run_inputs import RunInputs
from gate.cli import build_parser
from gate.commands import analyze as analyze_cmd
from gate.commands import run as run_cmd
from gate.config.project_config import parse_config
from gate.errors import ConfigError
from gate.files import run_meta
from gate.github.context import ActionInputs, problems_in_inputs

SKIP: Any = object()
BENCHMARK = '[[benchmark]]\nname = "a"\ncommand = "true"\n'


@dataclass(frozen=True)
class Case:
    good: bool
    typed: Any  # as .ordertrap.toml and meta.json hold it
    text: Any  # as a flag or an action input carries it


def good(typed: Any, text: Any = None) -> Case:
    return Case(True, typed, str(typed) if text is None else text)


def bad(typed: Any, text: Any = None) -> Case:
    return Case(False, typed, str(typed) if text is None else text)


Reader = Callable[[Any], bool]  # the value -> accepted


# ---- .ordertrap.toml -------------------------------------------------------------------------------
def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _config(text: str) -> bool:
    try:
        parse_config(text.encode(), Path(".ordertrap.toml"))
    except ConfigError:
        return False
    return True


def toml(table: str, key: str) -> tuple[str, str, Reader]:
    def read(value: Any) -> bool:
        line = f"{key} = {_literal(value)}\n"
        if table == "benchmark":
            return _config(BENCHMARK + line)
        return _config(f"[{table}]\n{line}{BENCHMARK}")

    return (f".ordertrap.toml [{table}] {key}", "typed", read)


def toml_full() -> tuple[str, str, Reader]:
    def read(levels: Any) -> bool:
        s, i, m = (_literal(v) for v in levels)
        return _config(f"[full]\nsuite_runs = {s}\niterations = {i}\nmeasurements = {m}\n{BENCHMARK}")

    return (".ordertrap.toml [full]", "typed", read)


# ---- the command line: argparse, then the verb's own check before any work --------------------------
_RUN_ARGS = ["run", "--base", "b", "--head", "h", "--out", "o"]
_ANALYZE_ARGS = ["analyze", "t.csv", "--json", "a.json"]


def _parse(argv: list[str]) -> argparse.Namespace | None:
    try:
        return build_parser([argv[0]]).parse_args(argv)
    except SystemExit:
        return None


def cli_run(flag: str) -> tuple[str, str, Reader]:
    def read(text: str) -> bool:
        ns = _parse([*_RUN_ARGS, f"{flag}={text}"])
        if ns is None:
            return False
        request = run_cmd.RunRequest.from_namespace(ns)
        try:
            run_cmd._check_arguments(request)
            run_cmd._adaptive(request, parse_config(BENCHMARK.encode(), Path("x.toml")))
        except ConfigError:
            return False
        return True

    return (f"run {flag}", "text", read)


def cli_analyze(flag: str) -> tuple[str, str, Reader]:
    def read(text: str) -> bool:
        ns = _parse([*_ANALYZE_ARGS, f"{flag}={text}"])
        if ns is None:
            return False
        try:
            analyze_cmd._settings(
                statistic=ns.statistic,
                confidence=ns.confidence,
                threshold_pct=ns.threshold_pct,
                resamples=ns.resamples,
                seed=ns.seed,
                bootstrap=ns.bootstrap,
                pairing=ns.pairing,
                interval=ns.interval,
            )
        except (ConfigError, ValueError):
            return False
        return True

    return (f"analyze {flag}", "text", read)


# ---- the action inputs ------------------------------------------------------------------------------
def docker_input(name: str) -> tuple[str, str, Reader]:
    def read(text: str) -> bool:
        _, problems = problems_in_inputs(ActionInputs, {f"INPUT_{name.upper()}": text})
        return not problems

    return (f"action.yml input {name}", "text", read)


def run_input(name: str) -> tuple[str, str, Reader]:
    def read(text: str) -> bool:
        _, problems = RunInputs.from_env({f"INPUT_{name.upper()}": text})
        return not problems

    return (f"run/action.yml input {name}", "text", read)


# ---- meta.json ----------------------------------------------------------------------------------------
def _meta(doc: dict[str, Any]) -> tuple[run_meta.RunMeta, list[str]]:
    return run_meta.from_json({"schema_version": 2, **doc}, "meta.json")


def meta(key: str) -> tuple[str, str, Reader]:
    def read(value: Any) -> bool:
        _, problems = _meta({key: value})
        return not problems

    return (f"meta.json {key}", "typed", read)


def meta_threshold() -> tuple[str, str, Reader]:
    def read(value: Any) -> bool:
        _, problems = _meta({"thresholds": {"a": value}})
        return not problems

    return ("meta.json thresholds", "typed", read)


def meta_statistic(key: str) -> tuple[str, str, Reader]:
    """meta.json's statistics are read leniently: one outside the domain reads as absent."""

    def read(value: Any) -> bool:
        doc, problems = _meta({key: value} if key == "statistic" else {key: {"a": value}})
        got = doc.statistic if key == "statistic" else doc.statistics.get("a")
        return not problems and got is not None

    return (f"meta.json {key}", "typed", read)


def _adaptive(**changes: Any) -> dict[str, Any]:
    rule = {"name": "bonferroni-looks", "confidence": 0.99, "looks": 4, "confidence_per_look": 0.9975}
    doc: dict[str, Any] = {"budget_s": 900.0, "max_rounds": 3, "rule": rule, "rounds": [], "final": None}
    for key, value in changes.items():
        if key.startswith("rule."):
            rule[key[len("rule.") :]] = value
        else:
            doc[key] = value
    return doc


def meta_adaptive(key: str) -> tuple[str, str, Reader]:
    def read(value: Any) -> bool:
        doc, problems = _meta({"adaptive": _adaptive(**{key: value})})
        return not problems and doc.adaptive is not None

    return (f"meta.json adaptive.{key}", "typed", read)


def meta_shard() -> tuple[str, str, Reader]:
    def read(value: Any) -> bool:
        index, count = value
        shard = {
            "index": index,
            "count": count,
            "method": "lpt",
            "seed": 1,
            "cost_unit": "values",
            "suite": ["a"],
            "assignment": {"a": index},
            "expected": [],
        }
        _, problems = _meta({"shard": shard})
        return not problems

    return ("meta.json shard", "typed", read)


def meta_full() -> tuple[str, str, Reader]:
    def read(levels: Any) -> bool:
        s, i, m = levels
        _, problems = _meta({"full": {"suite_run": s, "iteration": i, "measurement": m}})
        return not problems

    return ("meta.json full", "typed", read)


# ---- the table --------------------------------------------------------------------------------------
NAN, INF = math.nan, math.inf

TABLE: dict[str, tuple[list[tuple[str, str, Reader]], list[Case]]] = {
    "threshold_pct": (
        [
            toml("benchmark", "threshold_pct"),
            cli_analyze("--threshold-pct"),
            docker_input("threshold_pct"),
            meta_threshold(),
        ],
        [
            good(3),
            good(0.5),
            good(999.5),
            good(0.001),
            bad(0),
            bad(-3),
            bad(1000),
            bad(5000),
            bad(NAN, "nan"),
            bad(INF, "inf"),
            bad(True, "true"),
            bad("3", SKIP),
            bad(SKIP, "3%"),
        ],
    ),
    "confidence": (
        [
            cli_analyze("--confidence"),
            docker_input("confidence"),
            meta_adaptive("rule.confidence"),
            meta_adaptive("rule.confidence_per_look"),
        ],
        [
            good(0.5),
            good(0.95),
            good(0.99),
            bad(0.3),
            bad(0.0),
            bad(1),
            bad(99),
            bad(NAN, "nan"),
            bad(True, "high"),
        ],
    ),
    "statistic": (
        [
            toml("suite", "statistic"),
            toml("benchmark", "statistic"),
            cli_analyze("--statistic"),
            docker_input("statistic"),
            meta_statistic("statistic"),
            meta_statistic("statistics"),
        ],
        [
            good("p10"),
            good("median"),
            good("mean"),
            good("P05"),
            good(" p99 "),
            bad("p100"),
            bad("p0"),
            bad("mode"),
            bad(3, SKIP),
        ],
    ),
    "bootstrap": (
        [cli_analyze("--bootstrap"), docker_input("bootstrap")],
        [good("flat"), good("two-level"), good("auto"), good("FLAT"), bad("hierarchical"), bad("two level")],
    ),
    "budget": (
        [toml("adaptive", "budget"), cli_run("--budget"), run_input("budget"), meta_adaptive("budget_s")],
        [
            good(900),
            good(0),
            good(5400, "1h30m"),
            good(7 * 24 * 3600, "168h"),
            bad(7 * 24 * 3600 + 1),
            bad(-1),
            bad(NAN, "nan"),
            bad(True, "true"),
            bad(SKIP, "15 minutes"),
        ],
    ),
    "max_rounds": (
        [
            toml("adaptive", "max_rounds"),
            cli_run("--max-rounds"),
            run_input("max_rounds"),
            meta_adaptive("max_rounds"),
        ],
        [good(1), good(3), good(20), bad(0), bad(21), bad(-1), bad(2.5), bad(True, "true")],
    ),
    "seed": (
        [cli_run("--seed"), cli_analyze("--seed"), run_input("seed"), meta("seed")],
        [
            good(0),
            good(42),
            good(-3),
            good(2**40),
            bad(2.5),
            bad(True, "true"),
            bad(SKIP, "+3"),
            bad(SKIP, "1_000"),
            bad(SKIP, "٣"),  # ARABIC-INDIC DIGIT THREE: int() reads it, a workflow should not
        ],
    ),
    "sandbox": (
        [toml("suite", "sandbox"), cli_run("--sandbox"), run_input("sandbox")],
        [good("auto"), good("on"), good("off"), bad("OFF"), bad("none"), bad(0, SKIP)],
    ),
    "shard": (
        [cli_run("--shard"), run_input("shard"), meta_shard()],
        [
            good((1, 1), "1/1"),
            good((2, 4), "2/4"),
            good((256, 256), "256/256"),
            bad((0, 4), "0/4"),
            bad((5, 4), "5/4"),
            bad((1, 257), "1/257"),
            bad(SKIP, "2"),
        ],
    ),
    "suite_runs × iterations × measurements": (
        [toml_full(), meta_full()],
        [
            good((3, 5, 1), SKIP),
            good((1, 1, 1), SKIP),
            good((10_000, 1, 1), SKIP),
            bad((0, 5, 1), SKIP),
            bad((10_000, 2, 1), SKIP),  # 20,000 values per version, more than a run collects
            bad((True, 5, 1), SKIP),
            bad((2.5, 5, 1), SKIP),
        ],
    ),
}


@pytest.mark.parametrize("setting", list(TABLE))
def test_every_reader_of_a_setting_accepts_the_same_values(setting: str, capsys) -> None:
    readers, cases = TABLE[setting]
    disagree = []
    for case in cases:
        for name, form, read in readers:
            value = case.typed if form == "typed" else case.text
            if value is SKIP:
                continue
            if read(value) != case.good:
                disagree.append(f"{name} {'refuses' if case.good else 'accepts'} {value!r}")
    capsys.readouterr()  # argparse's usage lines
    assert not disagree, f"{setting}: " + "; ".join(disagree)


def test_each_setting_is_read_by_at_least_two_readers_with_good_and_bad_values() -> None:
    for setting, (readers, cases) in TABLE.items():
        assert len(readers) >= 2, setting
        assert any(c.good for c in cases) and any(not c.good for c in cases), setting
