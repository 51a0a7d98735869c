"""Benchmarks of textkit, one per process: ``python bench.py NAME``.

Prints the seconds spent in the timed region as the last number on stdout (the ordertrap-gate
``command`` adapter with ``value = "stdout"`` reads it). The corpus is generated from a fixed
seed before the timer starts, so every process measures the same work.

The clock is ``time.perf_counter`` (wall time). ``TEXTKIT_BENCH_CLOCK=cpu`` switches to
``time.process_time``, the CPU time of this process, which other jobs sharing the machine
disturb much less (the project's own tests use it; the demo measures wall time).
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable

import textkit

# Sized so one timed region takes roughly 30-80 ms on a 2-core CI machine.
N_LINES = 4000
WORDS_PER_LINE = 12
VOCABULARY = 6000
SEED = 20261126

_SYLLABLES = ["ka", "re", "mi", "to", "su", "ne", "lo", "pa", "vi", "du", "zé", "çö", "ñá", "ür", "ïl", "øn"]


_N_WORDS = 16**2 + 16**3 + 16**4


def _word(index: int) -> str:
    """The index-th of all 2-, 3- and 4-syllable words (shortest first, then lexicographic)."""
    length = 2
    while index >= 16**length:
        index -= 16**length
        length += 1
    return "".join(_SYLLABLES[(index >> (4 * k)) & 15] for k in reversed(range(length)))


def corpus() -> list[str]:
    """Deterministic pseudo-text: words with accents and mixed case, Zipf-like frequencies.

    Cheap to generate (it runs, untimed, in every benchmark process): ranks are drawn by
    inverting the power-law CDF, P(rank < r) = (r / VOCABULARY) ** 0.4.
    """
    rng = random.Random(SEED)
    # An odd stride scatters short and long words over the ranks.
    ranked = [_word((rank * 7919) % _N_WORDS) for rank in range(VOCABULARY)]
    ranked[::5] = [word.capitalize() for word in ranked[::5]]
    random_ = rng.random
    lines = []
    for _ in range(N_LINES):
        chosen = [ranked[int(VOCABULARY * random_() ** 2.5)] for _ in range(WORDS_PER_LINE)]
        lines.append(" ".join(chosen) + rng.choice([".", "!", "?", ", etc."]))
    # A few reordered copies, so dedupe has something to find.
    lines.extend(" ".join(reversed(line.split())) for line in lines[:: N_LINES // 50])
    return lines


def bench_tokenize(lines: list[str]) -> object:
    return [list(textkit.tokens(line)) for line in lines]


def bench_wordfreq(lines: list[str]) -> object:
    return textkit.top_words(lines, k=50)


def bench_ngrams(lines: list[str]) -> object:
    return textkit.bigram_counts(lines)


def bench_dedupe(lines: list[str]) -> object:
    return textkit.duplicate_groups(lines)


def bench_slugify(lines: list[str]) -> object:
    return [textkit.slugify(line) for line in lines]


def bench_vocab(lines: list[str]) -> object:
    return textkit.build_vocabulary(lines)


BENCHMARKS: dict[str, Callable[[list[str]], object]] = {
    "tokenize": bench_tokenize,
    "wordfreq": bench_wordfreq,
    "ngrams": bench_ngrams,
    "dedupe": bench_dedupe,
    "slugify": bench_slugify,
    "vocab": bench_vocab,
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] not in BENCHMARKS:
        print(f"usage: python bench.py {{{'|'.join(BENCHMARKS)}}}", file=sys.stderr)
        return 2
    func = BENCHMARKS[argv[1]]
    clock = time.process_time if os.environ.get("TEXTKIT_BENCH_CLOCK") == "cpu" else time.perf_counter
    lines = corpus()
    start = clock()
    result = func(lines)
    elapsed = clock() - start
    assert result is not None
    print(f"{argv[1]}: {elapsed:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
