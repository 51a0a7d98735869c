"""What head changes in ``.ordertrap.toml`` and the calibration file that a run did not use
(gate/config/config_files.py reads base's copies for both versions): every difference is a warning
that reaches the comment, the summary and the HTML report, and a list of changes per file in
meta.json ``sources``. Head's settings take effect once the pull request is merged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from gate.config.config_files import FilePair, Inputs, Source
from gate.config.project_config import SUITE_KEYS, ProjectConfig, parse_config
from gate.errors import GateError
from gate.files import calibration_json
from gate.model import LEVELS, warning
from gate.statistic import DEFAULT_STATISTIC, is_statistic
from gate.warning_codes import WarningCode

_SHOWN_NAMES = 5


def change_warnings(
    inputs: Inputs, discovered: Sequence[str] | None
) -> tuple[list[dict[str, str]], dict[str, list[str]]]:
    """Warnings naming what differs between base's files and the other copies (head's, or the ones
    used instead of base's), and the lists of changes per file for meta.json.

    ``discovered``: the benchmark names the adapter found in head before ``[suite]`` include/exclude,
    to compute which benchmarks each file selects for adapters that discover them.

    With ``--config-rev`` (the pair has an ``origin``, the merge-base's copy) head's changes are
    those against the merge-base (what the pull request itself changes); what the base branch
    changed since the pull request branched is listed under ``"<what>_since_branch"`` and reported
    with its own warning, so a moved base branch is never presented as the pull request's doing."""
    out: list[dict[str, str]] = []
    changes_by_file: dict[str, list[str]] = {}
    on_disk: list[str] = []  # --config-from worktree: the files that differ from base's, one note
    for used_pair in inputs.pairs:
        pair = used_pair
        if used_pair.origin is not None:
            pair = replace(used_pair, base=used_pair.origin, origin=None)
            moved = _pair_changes(replace(used_pair, base=used_pair.origin, other=used_pair.base), discovered)
            changes_by_file[f"{pair.what}_since_branch"] = moved
            if moved:
                out.append(_moved_warning(used_pair, moved))
        changes = _pair_changes(pair, discovered)
        changes_by_file[pair.what] = changes
        if not changes:
            continue  # only comments, formatting or fields that do not change what runs
        listed = "; ".join(changes)
        if pair.used == "base":
            code = (
                WarningCode.HEAD_CONFIG_CHANGE
                if pair.what == "config"
                else WarningCode.HEAD_CALIBRATION_CHANGE
            )
            used = "base's" if used_pair.origin is None else f"the base branch's ({used_pair.base.revision})"
            message = f"head changes {pair.path} (this run used {used} for both versions): {listed}"
            action = (
                "nothing for this run; head's settings take effect once this pull request is merged: "
                "review the change"
            )
            if pair.what == "calibration":
                action += (
                    " (calibration changes normally land through the nightly recalibration pull "
                    "request, computed from a full run)"
                )
            out.append(warning(code, message, action))
        elif inputs.mode == "worktree":
            on_disk.append(f"{pair.path}: {listed}")
        else:
            flag = inputs.mode
            message = (
                f"this run used {pair.other.describe()} instead of base's (--config-from {flag}), "
                f"so the measured code chose its own settings; it differs from base's: {listed}"
            )
            out.append(
                warning(
                    WarningCode.CONFIG_CHOSEN_BY_HEAD,
                    message,
                    "for a pull-request gate run without --config-from: base's files are the default "
                    "(as in the action)",
                )
            )
    if on_disk:
        # The operator asked for the files on disk (comparing two releases that predate the file,
        # trying the gate: README "Use it on your own project"): the measured code did not choose
        # them, so it is said once, for every file, as a note rather than a trust alarm.
        out.append(
            warning(
                WarningCode.CONFIG_FROM_WORKTREE,
                "both versions were measured with the files on disk, as --config-from worktree asks, "
                f"not with base's ({' — '.join(on_disk)})",
                "nothing when comparing releases or trying the gate; a pull-request gate reads base's "
                "files (the default with --base, as in the action)",
            )
        )
    return out, changes_by_file


def _pair_changes(pair: FilePair, discovered: Sequence[str] | None) -> list[str]:
    """What ``pair.other`` changes in ``pair.base`` ([] when the bytes are the same)."""
    if pair.base.data == pair.other.data and pair.base.error is None and pair.other.error is None:
        return []
    if pair.what == "config":
        return _config_pair_changes(pair, discovered)
    return _calibration_pair_changes(pair)


def _moved_warning(pair: FilePair, changes: Sequence[str]) -> dict[str, str]:
    assert pair.origin is not None
    code = WarningCode.BASE_CONFIG_MOVED if pair.what == "config" else WarningCode.BASE_CALIBRATION_MOVED
    return warning(
        code,
        f"the base branch changed {pair.path} since this pull request branched from "
        f"{pair.origin.revision} ({str(pair.origin.sha)[:12]}); its current settings ({pair.base.revision}) "
        f"apply to both versions: {'; '.join(changes)}",
        "nothing for this run (every pull request is judged by the base branch's current settings); "
        "if a benchmark the base branch now selects is missing here, merge or rebase onto the base branch",
    )


def _config_pair_changes(pair: FilePair, discovered: Sequence[str] | None) -> list[str]:
    if pair.other.error is not None or pair.base.error is not None:
        return [_unreadable(pair)]
    if pair.other.data is None:
        return ["removes the file"]
    if pair.base.data is None:
        return ["adds the file (base has none)"]
    old, new = _parsed_config(pair.base), _parsed_config(pair.other)
    if isinstance(new, str):
        return [f"its file would be refused by run: {_short(new, 160)}"]
    if isinstance(old, str):
        return [f"base's file cannot be read ({_short(old, 160)})"]
    return config_changes(old, new, discovered)


def _unreadable(pair: FilePair) -> str:
    if pair.other.error is not None:
        return f"its file cannot be read: {_short(pair.other.error, 160)}"
    return f"base's file cannot be read: {_short(str(pair.base.error), 160)}"


def _parsed_config(source: Source) -> ProjectConfig | str:
    """The parsed file, or why it cannot be parsed (head's copy is reported, never used)."""
    assert source.data is not None
    try:
        return parse_config(source.data, Path(source.label))
    except GateError as exc:
        return exc.message
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _raw_calibration(source: Source) -> tuple[Mapping[str, Any] | None, str | None]:
    """(the JSON object, None) or (the object or None, why run would refuse the file)."""
    assert source.data is not None
    try:
        text = source.data.decode("utf-8")
        data = calibration_json.load_document(text, source.label)
    except UnicodeDecodeError as exc:
        return None, f"not valid JSON ({_short(str(exc), 80)})"
    except GateError as exc:
        return None, exc.message
    try:
        calibration_json.from_document(data, source.label)
    except GateError as exc:
        return data, exc.message
    except (ValueError, TypeError, RecursionError) as exc:
        return data, f"{type(exc).__name__}: {exc}"
    return data, None


def _calibration_pair_changes(pair: FilePair) -> list[str]:
    if pair.other.error is not None or pair.base.error is not None:
        return [_unreadable(pair)]
    if pair.other.data is None:
        return ["removes the file (once merged, every benchmark runs the full configuration)"]
    new, new_error = _raw_calibration(pair.other)
    changes = [] if new_error is None else [f"its file would be refused by run: {_short(new_error, 160)}"]
    if pair.base.data is None:
        return [f"adds the file ({_calibrated_count(new)}; base has none)", *changes]
    old, old_error = _raw_calibration(pair.base)
    if old is None:
        return [*changes, f"base's file cannot be read ({old_error})"]
    if new is None:
        return changes
    return changes + calibration_changes(old, new)


# ---- pure comparisons ----------------------------------------------------------------------------------


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _short(repr(value), 24)
    if isinstance(value, str):
        return _short(json.dumps(value, ensure_ascii=False), 40)
    try:
        return _short(json.dumps(value, ensure_ascii=False, default=str), 60)
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def _gone_and_added(before: Iterable[str], after: Iterable[str]) -> tuple[list[str], list[str]]:
    """The names only ``before`` has and those only ``after`` has, each in its own order."""
    before, after = list(before), list(after)
    in_before, in_after = set(before), set(after)
    return [n for n in before if n not in in_after], [n for n in after if n not in in_before]


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(_short(str(n), 40) for n in names[:_SHOWN_NAMES])
    return shown + (f" and {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")


def _levels(levels: Any) -> str:
    if isinstance(levels, Mapping) and all(k in levels for k in LEVELS):
        return "×".join(_value(levels[k]) for k in LEVELS)
    return _value(levels)


def _selected(config: ProjectConfig, discovered: Sequence[str] | None) -> list[str] | None:
    names = [b.name for b in config.benchmarks] if config.suite.adapter == "command" else discovered
    return None if names is None else [n for n in names if config.selects(n)]


def config_changes(
    old: ProjectConfig, new: ProjectConfig, discovered: Sequence[str] | None = None
) -> list[str]:
    """What ``new`` changes in ``old``, most consequential first: the benchmarks each selects, the
    ``[[benchmark]]`` entries (unit, direction, command), ``[full]``, ``[suite]``, adapter tables.

    For adapters that discover benchmarks the selected sets are computed from ``discovered``, and
    only when both files give the adapter the same table and entries (else head's discovery
    could find other names)."""
    changes: list[str] = []
    covered: set[tuple[str, str]] = set()
    if old.suite.adapter != new.suite.adapter:
        changes.append(f"[suite].adapter {_value(old.suite.adapter)} → {_value(new.suite.adapter)}")
        covered.add(("suite", "adapter"))
    else:
        same_discovery = old.adapter_table == new.adapter_table and old.raw.get("benchmark") == new.raw.get(
            "benchmark"
        )
        before = _selected(old, discovered)
        after = _selected(new, discovered if same_discovery else None)
        if before is not None and after is not None:
            gone, added = _gone_and_added(before, after)
            if gone:
                changes.append(f"excludes {len(gone)} benchmark(s) that base's file runs: {_names(gone)}")
            if added:
                changes.append(f"adds {len(added)} benchmark(s): {_names(added)}")
        elif before is not None:
            changes.append(
                "changes the adapter's settings (which benchmarks head's file selects is not computed)"
            )

    old_entries = {b.name: b for b in old.benchmarks}
    new_entries = {b.name: b for b in new.benchmarks}
    if old.suite.adapter != "command" or old.suite.adapter != new.suite.adapter:
        gone, added = _gone_and_added(old_entries, new_entries)
        if gone:
            changes.append(f"removes [[benchmark]] {_names(gone)}")
        if added:
            changes.append(f"adds [[benchmark]] {_names(added)}")
    edited: list[str] = []
    for name, before_spec in old_entries.items():
        after_spec = new_entries.get(name)
        if after_spec is None:
            continue
        what = []
        if before_spec.higher_is_better != after_spec.higher_is_better:
            what.append(
                f"higher_is_better {_value(before_spec.higher_is_better)} → {_value(after_spec.higher_is_better)}"
            )
        if before_spec.unit != after_spec.unit:
            what.append(f"unit {_value(before_spec.unit)} → {_value(after_spec.unit)}")
        if before_spec.command != after_spec.command:
            what.append("command changed")
        if dict(before_spec.options) != dict(after_spec.options):
            keys = sorted(
                k
                for k in set(before_spec.options) | set(after_spec.options)
                if before_spec.options.get(k) != after_spec.options.get(k)
            )
            what.append(f"{', '.join(keys)} changed")
        if what:
            edited.append(f"{_short(name)} ({', '.join(what)})")
    if edited:
        changes.append(
            f"edits [[benchmark]] {', '.join(edited[:_SHOWN_NAMES])}"
            + (f" and {len(edited) - _SHOWN_NAMES} more" if len(edited) > _SHOWN_NAMES else "")
        )
    covered.add(("benchmark", ""))

    if old.full != new.full:
        changes.append(
            f"[full] {old.full.suite_runs}×{old.full.iterations}×{old.full.measurements} → "
            f"{new.full.suite_runs}×{new.full.iterations}×{new.full.measurements} "
            "(suite_runs×iterations×measurements)"
        )
    covered.add(("full", ""))

    old_suite, new_suite = _table(old.raw, "suite"), _table(new.raw, "suite")
    for key in [*SUITE_KEYS, *sorted(set(old_suite) | set(new_suite))]:
        if ("suite", key) in covered:
            continue
        covered.add(("suite", key))
        before_value, after_value = old_suite.get(key), new_suite.get(key)
        if before_value == after_value:
            continue
        if key in ("build", "reset", "prefix", "python"):
            changes.append(f"[suite].{key} changed")
        else:
            changes.append(f"[suite].{key} {_value(before_value)} → {_value(after_value)}")

    for table in sorted(set(old.raw) | set(new.raw)):
        if table in ("suite", "full", "benchmark"):
            continue
        before_table, after_table = old.raw.get(table), new.raw.get(table)
        if before_table == after_table:
            continue
        if isinstance(before_table, Mapping) and isinstance(after_table, Mapping):
            keys = sorted(
                str(k)
                for k in set(before_table) | set(after_table)
                if before_table.get(k) != after_table.get(k)
            )
            changes.append(f"[{_short(str(table))}] changes {_names(keys)}")
        else:
            changes.append(f"[{_short(str(table))}] changed")
    return changes


def _table(raw: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = raw.get(name)
    return table if isinstance(table, Mapping) else {}


def _warmup(value: Any) -> str:
    if isinstance(value, Mapping):
        level = value.get("level")
        shown = _short(level) if isinstance(level, str) else _value(level)
        return f"{_value(value.get('count'))} × {shown}"
    return _value(value)


def _calibrated_count(raw: Mapping[str, Any] | None) -> str:
    """'12 benchmark(s) calibrated, 12 of them never stable (they run the full configuration)':
    a never-stable benchmark is in the file but saves nothing (µOpTime §5), so the count says it."""
    benchmarks = raw.get("benchmarks") if raw is not None else None
    if not isinstance(benchmarks, Mapping):
        return "0 benchmark(s) calibrated"
    never = sum(1 for e in benchmarks.values() if isinstance(e, Mapping) and e.get("never_stable") is True)
    text = f"{len(benchmarks)} benchmark(s) calibrated"
    if never:
        text += f", {'all' if never == len(benchmarks) else never} of them never stable (they run the full configuration)"
    return text


def _configs(raw: Mapping[str, Any]) -> dict[str, Any]:
    benchmarks = raw.get("benchmarks")
    if not isinstance(benchmarks, Mapping):
        return {}
    return {str(n): (e.get("config") if isinstance(e, Mapping) else e) for n, e in benchmarks.items()}


def _statistic_text(value: Any) -> str:
    """A statistic name as written when it is one (a file's own text otherwise, quoted and cut)."""
    if value is None:
        return f"none ({DEFAULT_STATISTIC})"
    return value if isinstance(value, str) and is_statistic(value) else _value(value)


def _statistics(raw: Mapping[str, Any]) -> dict[str, Any]:
    benchmarks = raw.get("benchmarks")
    if not isinstance(benchmarks, Mapping):
        return {}
    return {str(n): e.get("statistic") for n, e in benchmarks.items() if isinstance(e, Mapping)}


def _deciding(value: Any) -> Any:
    """The statistic a calibrated benchmark's PRs are decided by: a benchmark without one (a
    schema-1 file, or a night with too few trials to choose) falls back to the default
    (gate/analysis/statistic_source.py; [suite] statistic = "calibrated" resolves it so), so
    "none" and the default are the same choice, not a change."""
    return DEFAULT_STATISTIC if value is None else value


def calibration_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What ``new`` changes in ``old`` among the fields that decide what runs (docs/contracts.md):
    per-benchmark levels and statistics, ``full``, ``discard_warmup``, ``levels``, ``metric`` and
    ``threshold``. Provenance fields (``created_at``, ``summary``, ``audit``, …) are not compared."""
    changes: list[str] = []
    before, after = _configs(old), _configs(new)
    edited = [n for n in before if n in after and before[n] != after[n]]
    if edited:
        shown = ", ".join(
            f"{_short(n)} {_levels(before[n])} → {_levels(after[n])}" for n in edited[:_SHOWN_NAMES]
        )
        more = f" and {len(edited) - _SHOWN_NAMES} more" if len(edited) > _SHOWN_NAMES else ""
        changes.append(f"calibrated levels of {len(edited)} benchmark(s): {shown}{more}")
    old_st, new_st = _statistics(old), _statistics(new)
    moved = [n for n in old_st if n in new_st and _deciding(old_st[n]) != _deciding(new_st[n])]
    if moved:
        shown = ", ".join(
            f"{_short(n)} {_statistic_text(old_st[n])} → {_statistic_text(new_st[n])}"
            for n in moved[:_SHOWN_NAMES]
        )
        more = f" and {len(moved) - _SHOWN_NAMES} more" if len(moved) > _SHOWN_NAMES else ""
        changes.append(f"calibrated statistic of {len(moved)} benchmark(s): {shown}{more}")
    added = [n for n in after if n not in before]
    if added:
        changes.append(f"calibrates {len(added)} more benchmark(s): {_names(added)}")
    gone = [n for n in before if n not in after]
    if gone:
        changes.append(f"no longer calibrates {len(gone)} benchmark(s): {_names(gone)}")
    if old.get("discard_warmup") != new.get("discard_warmup"):
        changes.append(
            f"discard_warmup {_warmup(old.get('discard_warmup'))} → {_warmup(new.get('discard_warmup'))}"
        )
    if old.get("full") != new.get("full"):
        changes.append(f"full {_levels(old.get('full'))} → {_levels(new.get('full'))}")
    for key in ("levels", "metric", "threshold"):
        if old.get(key) != new.get(key):
            changes.append(f"{key} {_value(old.get(key))} → {_value(new.get(key))}")
    return changes
