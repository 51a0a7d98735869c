"""Word frequencies."""

from __future__ import annotations

from collections.abc import Iterable

from textkit.normalize import tokens


def top_words(lines: Iterable[str], k: int = 50) -> list[tuple[str, int]]:
    """The ``k`` most frequent normalised words, most frequent first (ties: alphabetical)."""
    counts: dict[str, int] = {}
    for line in lines:
        for token in tokens(line):
            counts[token] = counts.get(token, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:k]
