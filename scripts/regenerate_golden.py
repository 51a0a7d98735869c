"""Regenerate the golden files of everything a person reads (``make golden``).

For every scenario in tests/fakes/analyses.SCENARIOS this writes
``tests/golden/<scenario>.comment.md`` and ``tests/golden/<scenario>.summary.md`` with the
context in :data:`GOLDEN_CONTEXT`. tests/unit/test_render_golden.py renders the same and
compares byte for byte; after an intended change run ``make golden`` and review the diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gate.render import RenderContext, render  # noqa: E402
from tests.fakes.analyses import SCENARIOS  # noqa: E402

GOLDEN_DIR = ROOT / "tests" / "golden"
GOLDEN_CONTEXT = RenderContext(
    run_url="https://github.com/example/project/actions/runs/42",
    report_url="https://github.com/example/project/actions/runs/42/artifacts/7",
    summary_url="https://github.com/example/project/actions/runs/42#summary",
)
FORMATS = ("comment", "summary")


def golden_path(scenario: str, fmt: str) -> Path:
    return GOLDEN_DIR / f"{scenario}.{fmt}.md"


def main() -> int:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for name, build in SCENARIOS.items():
        for fmt in FORMATS:
            path = golden_path(name, fmt)
            text = render(build(), fmt, GOLDEN_CONTEXT)  # type: ignore[arg-type]
            old = path.read_text(encoding="utf-8") if path.exists() else None
            path.write_text(text, encoding="utf-8")
            print(f"{'unchanged' if old == text else 'wrote'}: {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
