"""The packages of ``gate`` form layers, each importing only those below it (docs/development.md,
"Layers"): every import statement in ``gate/**/*.py`` — at module level or inside a function —
is checked against the order below. There is no list of exceptions: a definition that a lower
layer needs belongs in that layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GATE = Path(__file__).resolve().parents[2] / "gate"

# Lowest first. Modules of one entry may import each other (the base modules are small and
# import one another without a cycle); a package imports its own modules freely.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "__init__",
        "errors",
        "model",
        "warning_codes",
        "bidi",
        "safe_regex",
        "jsontext",
        "workflow_commands",
        "statistic",
    ),
    ("stats",),
    ("decision",),  # the pass/fail policy: its noisy-head rule is a statistic
    ("files",),
    # the rules of follow-up rounds: the budget and its grammar, the clock, the planner, the
    # analysis.json summary; pure over files/, so the configuration and the analysis read them
    ("rounds",),
    ("adapters",),
    ("host",),  # the programs and the git the gate runs outside the sandbox
    ("config",),  # the configuration a run obeys, and which revision it is read from
    ("engine",),
    ("analysis",),
    ("render",),
    ("github",),
    ("calibration",),
    ("history",),
    ("adaptive",),
    ("commands",),
    ("action",),  # the GitHub actions over the verbs' keyword cores
    ("cli",),
    ("__main__",),
)
LEVEL = {part: i for i, layer in enumerate(LAYERS) for part in layer}


def _part(module: str) -> str:
    """The layer a dotted module name belongs to: ``gate.engine.driver`` → ``engine``."""
    parts = module.split(".")
    assert parts[0] == "gate", module
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path: Path) -> str:
    rel = path.relative_to(GATE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1] if len(parts) > 2 else [*parts[:-1], "__init__"]
    return ".".join(parts)


def _imports(path: Path, source: str) -> list[tuple[int, str]]:
    """(line, imported gate module) for every import statement of ``source``, the text of
    ``path``; ``from gate import x`` names the submodule ``gate.x`` when there is one."""
    tree = ast.parse(source)
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "gate"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module.split(".")[0] != "gate":
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                is_module = (GATE.parent / Path(*sub.split("."))).with_suffix(".py").exists() or (
                    GATE.parent / Path(*sub.split("."))
                ).is_dir()
                found.append((node.lineno, sub if is_module else module))
    return found


def _violations(extra: dict[Path, str] | None = None) -> list[str]:
    """Every import against the layers; ``extra`` adds modules (path inside gate/ → source) that
    are checked as if they were there, without writing into the tree other tests read."""
    sources = {path: path.read_text(encoding="utf-8") for path in sorted(GATE.rglob("*.py"))}
    sources.update(extra or {})
    out = []
    for path, source in sources.items():
        here = _part(_module_name(path))
        assert here in LEVEL, f"{path}: gate/{here} is in no layer: add it to LAYERS and docs/development.md"
        for line, module in _imports(path, source):
            there = _part(module)
            assert there in LEVEL, f"{path}:{line} imports {module}, in no layer"
            own_package = there.split(".")[0] == here.split(".")[0]
            if (there != here and LEVEL[there] > LEVEL[here]) or (
                LEVEL[there] == LEVEL[here] and there != here and LEVEL[here] != 0 and not own_package
            ):
                out.append(f"{path.relative_to(GATE.parent)}:{line}: {here} imports {module} ({there})")
    return out


def test_every_import_follows_the_layers() -> None:
    assert _violations() == []


def test_the_layers_are_the_ones_the_development_guide_shows() -> None:
    guide = (GATE.parent / "docs" / "development.md").read_text(encoding="utf-8")
    shown = " → ".join("/".join(layer) for layer in LAYERS)
    assert shown in guide, f"docs/development.md 'Layers' should show: {shown}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from gate.analysis import pipeline\n", "engine imports gate.analysis.pipeline (analysis)"),
        (
            "def f():\n    from gate.render.filters import shorten_middle\n",
            "engine imports gate.render.filters",
        ),
        ("from ..github import client\n", "engine imports gate.github.client (github)"),
        ("from gate.adaptive import loop\n", "engine imports gate.adaptive.loop (adaptive)"),
    ],
)
def test_an_upward_import_is_found(source: str, expected: str) -> None:
    """The check sees imports at module level, inside functions and relative ones."""
    planted = GATE / "engine" / "_planted_for_layer_test.py"
    assert not planted.exists()
    assert any(expected in v for v in _violations({planted: source}))


def test_no_module_of_the_package_is_over_600_lines():
    # a module a person can read in one sitting (docs/development.md, "Layers"): past it, split
    # by what the parts do rather than let one module gather a stage's leftovers
    long = {
        str(path.relative_to(GATE)): n
        for path in GATE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
