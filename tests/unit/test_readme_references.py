"""Every section that a product file points to exists (README "X", README: X): in the README or in
the manual it links, docs/*.md."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

README = "\n".join(
    p.read_text(encoding="utf-8")
    for p in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
)
FILES = [
    *sorted((REPO_ROOT / "gate").rglob("*.py")),
    *sorted((REPO_ROOT / "gate").rglob("*.j2")),
    *sorted((REPO_ROOT / "scripts").glob("*.*")),
    *sorted((REPO_ROOT / "benchmarks").glob("*.py")),
    *sorted((REPO_ROOT / "eval").glob("*.py")),
    *sorted((REPO_ROOT / "examples" / "workflows").glob("*.yml")),
    *[REPO_ROOT / p for p in ("Dockerfile", "Makefile", "action.yml", "run/action.yml", "guard/action.yml")],
]
QUOTED = re.compile(r"README(?:\.md)?,? [\"“']([^\"”'\n]{3,80})[\"”']")
PAREN = re.compile(r"\(README: ([^)\"'\n]{3,80})\)")
OTHER_READMES = ("data/README", "hyperfine README", "the data README")


def _targets() -> list[str]:
    """Headings (without #, numbering and backticks) and bold paragraph leads (**X.**)."""
    out = []
    for line in README.splitlines():
        if line.startswith("#"):
            text = re.sub(r"^#+\s*(\d+\.\s*)?", "", line)
            out.append(text.replace("`", "").strip().lower())
    out += [m.replace("`", "").strip().lower() for m in re.findall(r"\*\*([^*\n]{3,80}?)\.?\*\*", README)]
    return out


def references() -> list[tuple[str, str]]:
    found = []
    for path in FILES:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern in (QUOTED, PAREN):
            for m in pattern.finditer(text):
                if any(o in text[max(0, m.start() - 20) : m.start() + 10] for o in OTHER_READMES):
                    continue
                found.append((str(path.relative_to(REPO_ROOT)), m[1]))
    return found


def test_files_point_to_readme_sections_that_exist() -> None:
    targets = _targets()
    refs = references()
    assert len(refs) >= 10  # the patterns still find the references
    missing = [
        f"{where}: {ref!r}"
        for where, ref in refs
        if not any(t == ref.replace("`", "").strip().lower() or t.startswith(ref.lower()) for t in targets)
    ]
    assert missing == [], "README sections named in files but absent from README.md"
