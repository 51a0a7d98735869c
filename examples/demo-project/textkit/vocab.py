"""Vocabulary building."""

from __future__ import annotations

from collections.abc import Iterable

from textkit.normalize import save_warm_start, tokens


def build_vocabulary(lines: Iterable[str], warm_start: bool = True) -> dict[str, int]:
    """Map every normalised word to a dense id, in order of first appearance.

    With ``warm_start`` (the default) the normalisation memo is saved for the next process, so
    a pipeline step that runs right after vocabulary building does not normalise the corpus
    again. The file is single use: the next ``import textkit`` loads and deletes it.
    """
    vocab: dict[str, int] = {}
    for line in lines:
        for token in tokens(line):
            if token not in vocab:
                vocab[token] = len(vocab)
    if warm_start:
        save_warm_start()
    return vocab
