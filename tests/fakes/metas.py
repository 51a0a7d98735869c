"""meta.json documents for tests, built through the reader ``analyze`` uses
(:mod:`gate.files.run_meta`), so a fixture cannot hold what no run writes."""

from __future__ import annotations

from typing import Any

from gate.files import run_meta
from gate.files.run_meta import RunMeta


def meta_of(doc: dict[str, Any]) -> RunMeta:
    """``doc`` as read from meta.json; every field must have its documented type."""
    meta, problems = run_meta.from_json(doc, "meta.json")
    assert problems == [], problems
    return meta
