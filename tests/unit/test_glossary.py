"""The glossary of docs/development.md names the types that hold each concept: every type it
names exists, so a rename that forgets the glossary fails here."""

from __future__ import annotations

import ast
import importlib
import re

from tests.conftest import REPO_ROOT

GATE = REPO_ROOT / "gate"


def _glossary() -> str:
    text = (REPO_ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    section = text.split("\n## Glossary\n", 1)[1]
    return section.split("\n## ", 1)[0]


def _top_level_names() -> set[str]:
    names: set[str] = set()
    for path in GATE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_every_type_the_glossary_names_exists() -> None:
    quoted = re.findall(r"`([^`]+)`", _glossary())
    qualified = [q for q in quoted if q.startswith("gate.")]
    bare = [q for q in quoted if re.fullmatch(r"[A-Z][A-Za-z]+|[a-z]+(?:_[a-z]+)+", q)]
    assert qualified and bare
    for name in qualified:
        module, _, attr = name.rpartition(".")
        assert hasattr(importlib.import_module(module), attr), name
    # a lower-case name is a function, or an input of the Docker action (`fail_on`)
    inputs = set(re.findall(r"^  ([a-z_]+):", (REPO_ROOT / "action.yml").read_text(encoding="utf-8"), re.M))
    missing = [name for name in bare if name not in _top_level_names() | inputs]
    assert missing == []


def _members_by_class() -> dict[str, set[str]]:
    members: dict[str, set[str]] = {}
    for path in GATE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                names = members.setdefault(node.name, set())
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        names.add(item.target.id)
                    elif isinstance(item, ast.FunctionDef):
                        names.add(item.name)
    return members


def test_every_attribute_the_glossary_names_exists() -> None:
    # `Type.attribute` or `Type.method()`: a renamed field or method fails here too
    dotted = re.findall(r"`([A-Z][A-Za-z]+)\.([a-z_]+)(?:\(\))?`", _glossary())
    assert dotted
    members = _members_by_class()
    missing = [f"{cls}.{attr}" for cls, attr in dotted if attr not in members.get(cls, set())]
    assert missing == []
