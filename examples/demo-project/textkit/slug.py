"""URL slugs."""

from __future__ import annotations

from textkit.normalize import tokens


def slugify(title: str, max_words: int = 8) -> str:
    """``"Crème Brûlée, à la carte!"`` → ``"creme-brulee-a-la-carte"``."""
    words = []
    for token in tokens(title):
        words.append(token)
        if len(words) == max_words:
            break
    return "-".join(words)
