"""Word n-grams."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import pairwise

from textkit.normalize import tokens


def bigram_counts(lines: Iterable[str]) -> Counter[tuple[str, str]]:
    """Counts of adjacent normalised word pairs, within each line."""
    counts: Counter[tuple[str, str]] = Counter()
    for line in lines:
        counts.update(pairwise(tokens(line)))
    return counts
