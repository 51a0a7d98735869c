"""meta.json documents for tests, built through the reader ``analyze`` uses
(:mod:`gate.files.run_meta`), so a fixture cannot hold what no run writes."""

from __future__ import annotations

from typing import Any

from gate.files import run_meta
from gate.files.run_meta import RunMeta
from gate.model import TRIAL_LOG_SCHEMA


def meta_of(doc: dict[str, Any]) -> RunMeta:
    """``doc`` as read from meta.json (``schema_version`` the one written today unless ``doc`` sets
    it); every field must have its documented type."""
    meta, problems = run_meta.from_json({"schema_version": TRIAL_LOG_SCHEMA, **doc}, "meta.json")
    assert problems == [], problems
    return meta
