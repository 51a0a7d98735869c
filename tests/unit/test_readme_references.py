"""Every section a file points people to exists in the file the reference names: README "X" and
(README: X) in README.md, docs/page.md "X" and (docs/page.md: X) in that page of the manual."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO_ROOT

DOC_FILES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
FILES = [
    *sorted((REPO_ROOT / "gate").rglob("*.py")),
    *sorted((REPO_ROOT / "gate").rglob("*.j2")),
    *sorted((REPO_ROOT / "scripts").glob("*.*")),
    *sorted((REPO_ROOT / "benchmarks").glob("*.py")),
    *sorted((REPO_ROOT / "eval").glob("*.py")),
    *sorted((REPO_ROOT / "examples" / "workflows").glob("*.yml")),
    *sorted(p for p in (REPO_ROOT / "tests").rglob("*.py") if "testdata" not in p.parts),
    REPO_ROOT / "tests" / "README.md",
    *DOC_FILES,
    *[REPO_ROOT / p for p in ("Dockerfile", "Makefile", "action.yml", "run/action.yml", "guard/action.yml")],
]

_FILE = r"(?<![\w/.-])(README(?:\.md)?|docs/[\w-]+\.md)"
# the quoted heading may wrap onto the next line (of a comment: its "#" is not part of it)
QUOTED = re.compile(_FILE + r",? [\"“']([^\"”'`]{3,100}?)[\"”']")
PAREN = re.compile(r"\(" + _FILE + r": ([^)\"'\n]{3,80})\)")
OTHER_READMES = ("data/README", "hyperfine README", "the data README")


def _normal(text: str) -> str:
    text = re.sub(r"\s*\n\s*(?:#\s*)?", " ", text)  # a heading wrapped in a comment
    return text.replace("`", "").strip().lower()


def _targets(paths: list[Path]) -> list[str]:
    """Headings (without #, numbering and backticks) and bold paragraph leads (**X.**)."""
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        in_fence = False
        for line in text.splitlines():
            if line.startswith("```"):
                in_fence = not in_fence
            elif line.startswith("#") and not in_fence:
                out.append(_normal(re.sub(r"^#+\s*(\d+\.\s*)?", "", line)))
        out += [_normal(m) for m in re.findall(r"\*\*([^*\n]{3,80}?)\.?\*\*", text)]
    return out


def references() -> list[tuple[str, str, str]]:
    """(file holding the reference, file it names, section), for every reference."""
    found = []
    for path in FILES:
        if not path.is_file() or path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern in (QUOTED, PAREN):
            for m in pattern.finditer(text):
                if any(o in text[max(0, m.start() - 20) : m.start() + 10] for o in OTHER_READMES):
                    continue
                named = "README.md" if m[1].startswith("README") else m[1]
                found.append((str(path.relative_to(REPO_ROOT)), named, m[2]))
    return found


def _exists(section: str, targets: list[str]) -> bool:
    wanted = _normal(section)
    return any(t == wanted or t.startswith(wanted) for t in targets)


def test_files_point_to_sections_that_exist_in_the_file_they_name() -> None:
    refs = references()
    assert len(refs) >= 10  # the patterns still find the references
    missing = []
    for where, named, section in refs:
        page = REPO_ROOT / named
        if not page.is_file():
            missing.append(f"{where}: {named} does not exist")
            continue
        targets = _targets([page])
        if not _exists(section, targets):
            missing.append(f"{where}: {named} {section!r}")
    assert missing == [], "sections named in files but absent from the file they name"


def test_a_section_that_moved_to_the_manual_is_not_found_in_the_readme() -> None:
    """The check is per file: a heading only docs/ has does not satisfy README "X"."""
    readme, manual = _targets([REPO_ROOT / "README.md"]), _targets([REPO_ROOT / "docs" / "github-actions.md"])
    assert _exists("Fork PRs", manual) and not _exists("Fork PRs", readme)
    text = 'see docs/github-actions.md "Fork\n    # PRs" and (README: Quick start)'
    quoted, paren = QUOTED.search(text), PAREN.search(text)
    assert quoted and (quoted[1], _normal(quoted[2])) == ("docs/github-actions.md", "fork prs")
    assert paren and (paren[1], paren[2]) == ("README", "Quick start")
    assert QUOTED.search('tests/README.md "Golden files"') is None  # another README


def test_the_readme_quotes_no_developer_command_and_the_manual_keeps_them() -> None:
    """The README is for users: evaluation and speed scripts (run from a checkout with its dev
    venv) are quoted in the manual page that explains their tables, not in the README."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    dev = re.compile(r"python3? -m (?:eval|benchmarks|scripts)\.|\b(?:eval|benchmarks)/\w+\.py")
    assert dev.findall(readme) == []
    assert ".venv/bin/python -m eval.adaptive_replay" in (REPO_ROOT / "docs" / "evaluation.md").read_text(
        encoding="utf-8"
    )
