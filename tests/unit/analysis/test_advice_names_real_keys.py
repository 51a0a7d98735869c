"""Advice that names a [full] setting names one .ordertrap.toml has: a user who types
``[full].suite_run = 3`` (the similarity warning's old advice) gets a configuration error."""

from __future__ import annotations

import re
from pathlib import Path

import gate
from gate.config.project_config import FULL_KEYS

NAMED = re.compile(r"\[full\]\.(\w+)")


def test_every_full_key_the_gate_names_exists() -> None:
    root = Path(gate.__file__).parent
    named = {
        (str(path.relative_to(root)), key)
        for path in root.rglob("*.py")
        for key in NAMED.findall(path.read_text(encoding="utf-8"))
    }
    assert named, "the pattern finds the [full] keys the advice names"
    assert {(where, key) for where, key in named if key not in FULL_KEYS} == set()
