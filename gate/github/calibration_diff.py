"""What changed between two calibration files, as Markdown for the nightly recalibration PR.

``ordertrap-gate calibration-diff OLD.json NEW.json`` (OLD may be missing: the first
calibration). Used by examples/workflows/perf-nightly.yml as the pull request's body.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gate.errors import InputError
from gate.files import calibration_json
from gate.render.render import render_markdown
from gate.workflow_commands import escape_data

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


def _number(value: object, digits: int) -> str:
    return f"{value:.{digits}f}" if isinstance(value, int | float) and not isinstance(value, bool) else "—"


def _count(value: object) -> object:
    return value if isinstance(value, int) and not isinstance(value, bool) else "—"


def _pct(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _audit_view(audit: Any) -> dict[str, Any] | None:
    """The audit's own facts (scalars such as ``calibrated_on``) and, per version pair, how often
    the minimal configurations reach the full configuration's verdict (docs/contracts.md, audit)."""
    if not isinstance(audit, dict):
        return None
    facts = [(key, value) for key, value in audit.items() if isinstance(value, int | float | str | bool)]
    pairs = [
        {
            "base": pair.get("base", "?"),
            "head": pair.get("head", "?"),
            "agreement_pct": _pct(pair.get("agreement_pct")),
            # agreement over the full configuration's decided verdicts (absent from older files)
            "has_decided": "decided" in pair,
            "agreement_decided_pct": _pct(pair.get("agreement_decided_pct")),
            "rounds": _count((pair.get("rounds") or {}).get("rounds"))
            if isinstance(pair.get("rounds"), dict)
            else None,
            **{
                key: _count(pair.get(key))
                for key in ("n", "full_changes", "min_changes", "fp", "fn", "decided", "minimal_decided")
            },
        }
        for pair in audit.get("pairs") or []
        if isinstance(pair, dict)
    ]
    return {"facts": facts, "pairs": pairs}


def diff_view(
    old: dict[str, Any] | None, new: dict[str, Any], old_error: str | None = None
) -> dict[str, Any]:
    """What the template shows: Python computes, the template only formats (render/filters).
    ``old_error``: why an OLD file that exists could not be read (it is then no first calibration)."""
    summary = new.get("summary") or {}
    old_summary = (old or {}).get("summary") or {}
    new_b = new.get("benchmarks") or {}
    old_b = (old or {}).get("benchmarks") or {}
    changed = [
        name
        for name in sorted(set(new_b) | set(old_b))
        if _config(old_b.get(name)) != _config(new_b.get(name))
    ]
    rows = [
        {
            "name": name,
            "before": _config(old_b.get(name)),
            "now": _config(new_b.get(name)),
            "instability": _number((new_b.get(name) or {}).get("instability"), 4),
        }
        for name in changed[:MAX_ROWS]
    ]
    saved = _pct(summary.get("saved_pct"))
    return {
        "metric": str(new.get("metric")),
        "threshold": new.get("threshold"),
        "n_benchmarks": summary.get("n_benchmarks", "?"),
        "n_never_stable": summary.get("n_never_stable", 0),
        "saved_pct": saved,
        "old_saved_pct": _pct(old_summary.get("saved_pct")) if saved is not None else None,
        "first": old is None and old_error is None,
        "old_error": old_error,
        "rows": rows if old is not None else [],
        "more": len(changed) - len(rows) if old is not None else 0,
        "audit": _audit_view(new.get("audit")),
    }


def diff_markdown(old: dict[str, Any] | None, new: dict[str, Any], old_error: str | None = None) -> str:
    """The Markdown of :func:`diff_view`, rendered by ``calibration_diff.md.j2``."""
    return render_markdown("calibration_diff.md.j2", v=diff_view(old, new, old_error))


def calibration_diff(old: Path, new: Path) -> str:
    """The Markdown for ``ordertrap-gate calibration-diff OLD NEW``; OLD may be missing."""
    current = _load(new)
    if current is None:
        raise InputError(
            f"{escape_data(str(new))} is not a calibration file",
            fix="run `ordertrap-gate calibrate TRIALS.csv --out NEW.json` first and pass the file it writes",
        )
    if not old.exists() and not old.is_symlink():
        return diff_markdown(None, current)  # the first calibration of the repository
    try:
        previous = dict(calibration_json.read(old).document)
    except InputError as exc:
        # a corrupt committed file is no first calibration: the reviewer must hear it is replaced
        reason = exc.message if len(exc.message) <= 300 else exc.message[:299] + "…"
        return diff_markdown(None, current, old_error=reason)
    return diff_markdown(previous, current)
