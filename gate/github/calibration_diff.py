"""What changed between two calibration files, as Markdown for the nightly recalibration PR.

``ordertrap-gate calibration-diff OLD.json NEW.json`` (OLD may be missing: the first
calibration). Used by examples/workflows/perf-nightly.yml as the pull request's body.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gate.errors import InputError
from gate.files import calibration_json
from gate.github.workflow_commands import escape_data

MAX_ROWS = 200


def _load(path: Path) -> dict[str, Any] | None:
    """The document of a readable calibration file (gate/files/calibration_json.py), else None."""
    try:
        return dict(calibration_json.read(path).document)
    except InputError:
        return None


def _config(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "—"
    config = entry.get("config") or {}
    text = " × ".join(f"{config[k]}" for k in ("suite_run", "iteration", "measurement") if k in config)
    if entry.get("never_stable"):
        text += " (never stable)"
    return text or "—"


def _cell(text: object) -> str:
    # benchmark names are user data: keep them from breaking the table or pinging people
    return str(text).replace("|", "\\|").replace("@", "@\u200b").replace("\n", " ")


def diff_markdown(old: dict[str, Any] | None, new: dict[str, Any]) -> str:
    lines = ["## ordertrap-gate: nightly recalibration", ""]
    summary = new.get("summary") or {}
    old_summary = (old or {}).get("summary") or {}
    saved, old_saved = summary.get("saved_pct"), old_summary.get("saved_pct")
    lines.append(
        f"Metric `{new.get('metric')}` < {new.get('threshold')}; "
        f"{summary.get('n_benchmarks', '?')} benchmarks, {summary.get('n_never_stable', 0)} never stable."
    )
    if isinstance(saved, int | float):
        before = f" (was {old_saved:.1f}%)" if isinstance(old_saved, int | float) else ""
        lines.append(
            f"The minimal configurations save **{saved:.1f}%** of the full configuration's cost{before}."
        )
    lines.append("")
    new_b = new.get("benchmarks") or {}
    old_b = (old or {}).get("benchmarks") or {}
    changed = [
        name
        for name in sorted(set(new_b) | set(old_b))
        if _config(old_b.get(name)) != _config(new_b.get(name))
    ]
    if old is None:
        lines.append("First calibration of this repository.")
    elif not changed:
        lines.append("No benchmark changed its configuration.")
    if changed and old is not None:
        lines += [
            "| benchmark | before (runs × iterations × measurements) | now | instability now |",
            "|---|---|---|---|",
        ]
        for name in changed[:MAX_ROWS]:
            entry = new_b.get(name) or {}
            value = entry.get("instability")
            shown = f"{value:.4f}" if isinstance(value, int | float) else "—"
            lines.append(
                f"| {_cell(name)} | {_config(old_b.get(name))} | {_config(new_b.get(name))} | {shown} |"
            )
        if len(changed) > MAX_ROWS:
            lines.append(f"| … {len(changed) - MAX_ROWS} more | | | |")
    audit = new.get("audit")
    lines.append("")
    if isinstance(audit, dict):
        lines.append("### Audit (minimal vs full configuration)")
        for key, value in audit.items():
            if isinstance(value, int | float | str | bool):
                lines.append(f"- {_cell(key)}: {_cell(value)}")
    else:
        lines.append("No audit in this calibration (run `calibrate --audit` on a log with two versions).")
    return "\n".join(lines) + "\n"


def calibration_diff(old: Path, new: Path) -> str:
    """The Markdown for ``ordertrap-gate calibration-diff OLD NEW``; OLD may be missing."""
    current = _load(new)
    if current is None:
        raise InputError(
            f"{escape_data(str(new))} is not a calibration file",
            fix="run `ordertrap-gate calibrate TRIALS.csv --out NEW.json` first and pass the file it writes",
        )
    return diff_markdown(_load(old), current)
