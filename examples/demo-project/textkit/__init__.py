"""textkit: a tiny text-analytics library (the ordertrap-gate demo project).

Everything goes through :func:`textkit.normalize.normalize_token`, a memoised Unicode
normalisation (NFKD, strip accents, casefold). The memo can be handed to the next process as a
single-use warm-start file: :func:`textkit.vocab.build_vocabulary` writes it, and importing
textkit consumes it. That hand-over is the demo's intentional carry-over (see README.md).
"""

from textkit.dedupe import duplicate_groups
from textkit.ngrams import bigram_counts
from textkit.normalize import load_warm_start, normalize_token, tokens
from textkit.slug import slugify
from textkit.vocab import build_vocabulary
from textkit.wordfreq import top_words

__all__ = [
    "bigram_counts",
    "build_vocabulary",
    "duplicate_groups",
    "load_warm_start",
    "normalize_token",
    "slugify",
    "tokens",
    "top_words",
]

# Consume a warm-start file left by the previous process, if any (single use: it is deleted).
load_warm_start()
