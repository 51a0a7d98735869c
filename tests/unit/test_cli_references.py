"""Every `ordertrap-gate COMMAND … --option` that a message, template or document tells people to
type names options that exist: a fix that names a missing option is no fix (F7)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from gate.cli import COMMANDS, build_parser
from gate.errors import InputError
from gate.files import analysis_json
from tests.conftest import REPO_ROOT

NAMES = "|".join(re.escape(name) for name, _, _ in COMMANDS)
# `ordertrap-gate analyze TRIALS.csv --json out.json` up to the end of the quote, string or line;
# shell line continuations (`\` + newline) are followed.
COMMAND_LINE = re.compile(rf"ordertrap-gate\s+({NAMES})\b((?:[^`\"'\n\\]|\\\n|\\(?!\n))*)")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SKIP_DIRS = {
    ".git",
    ".venv",
    "build",
    "demo-output",
    "node_modules",
    "__pycache__",
    "ordertrap_gate.egg-info",
}
SUFFIXES = {".py", ".j2", ".md", ".yml", ".yaml", ".toml", ".sh", ".txt", ""}


def _options() -> dict[str, set[str]]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]

    def options(p: argparse.ArgumentParser) -> set[str]:
        # a command with verbs (`history add …`): the options of all its verbs
        found = {o for act in p._actions for o in act.option_strings}
        for act in p._actions:
            if isinstance(act, argparse._SubParsersAction):
                for verb in act.choices.values():
                    found |= options(verb)
        return found

    return {name: options(p) for name, p in sub.choices.items()}


def _files() -> list[Path]:
    roots = [
        REPO_ROOT / "gate",
        REPO_ROOT / "docs",
        REPO_ROOT / "scripts",
        REPO_ROOT / "benchmarks",
        REPO_ROOT / "eval",
        REPO_ROOT / ".github",
        REPO_ROOT / "run",
    ]
    files = [
        REPO_ROOT / "README.md",
        REPO_ROOT / "action.yml",
        REPO_ROOT / "Makefile",
        REPO_ROOT / "Dockerfile",
    ]
    for root in roots:
        if root.is_dir():
            files += [
                p
                for p in root.rglob("*")
                if p.is_file() and p.suffix in SUFFIXES and not SKIP_DIRS.intersection(p.parts)
            ]
    return [f for f in files if f.is_file()]


def stale_options(text: str, options: dict[str, set[str]]) -> list[str]:
    found = []
    for m in COMMAND_LINE.finditer(text):
        command, rest = m.group(1), m.group(2)
        for option in OPTION.findall(rest):
            if option not in options[command]:
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"line {line}: `ordertrap-gate {command} … {option}`: {command} has no {option}")
    return found


def test_the_scanner_finds_a_stale_option() -> None:
    options = _options()
    assert stale_options("fix: run `ordertrap-gate analyze TRIALS.csv --out analysis.json`", options)
    assert not stale_options("fix: run `ordertrap-gate analyze TRIALS.csv --json analysis.json`", options)
    assert stale_options("ordertrap-gate analyze a.csv \\\n    --base main --bogus 1\n", options)


def test_every_quoted_command_line_names_real_options() -> None:
    options = _options()
    problems = []
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        problems += [f"{path.relative_to(REPO_ROOT)} {p}" for p in stale_options(text, options)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("data", [{}, [], {"schema_version": 1}, {"schema_version": "1"}])
def test_not_an_analysis_names_the_analyze_option_that_exists(data: object) -> None:
    with pytest.raises(InputError) as err:
        analysis_json.validate(data)
    assert "--json analysis.json" in err.value.fix and "--out" not in err.value.fix


def test_a_missing_analysis_names_the_analyze_option_that_exists(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        analysis_json.read(tmp_path / "missing.json")
    assert "--json analysis.json" in err.value.fix and "--out" not in err.value.fix
