"""Near-duplicate lines: same words, ignoring case, accents, punctuation and order."""

from __future__ import annotations

from collections.abc import Iterable

from textkit.normalize import tokens


def duplicate_groups(lines: Iterable[str]) -> list[list[int]]:
    """Groups (line indices) of lines that share the same set of normalised words."""
    groups: dict[frozenset[str], list[int]] = {}
    for index, line in enumerate(lines):
        groups.setdefault(frozenset(tokens(line)), []).append(index)
    return [members for members in groups.values() if len(members) > 1]
