"""Token normalisation with a process-wide memo and an optional single-use warm start."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

WORD = re.compile(r"\w+")
_MEMO: dict[str, str] = {}
WARM_START_NAME = "warm-start.pickle"
# The warm-start file keeps the first words seen (mostly the frequent ones), bounded in size.
WARM_START_MAX_ENTRIES = 4000


def cache_dir() -> Path:
    """Where the warm-start file lives: $TEXTKIT_CACHE_DIR, else a per-user temp directory.

    It is deliberately outside any checkout, so the base and head versions share it.
    """
    configured = os.environ.get("TEXTKIT_CACHE_DIR")
    if configured:
        return Path(configured)
    import tempfile  # only here: keeps `import textkit` cheap

    return Path(tempfile.gettempdir()) / f"textkit-cache-{os.getuid()}"


def normalize_token(token: str) -> str:
    """Fold a token for comparison: compatibility-decompose, drop accents, casefold."""
    try:
        return _MEMO[token]
    except KeyError:
        pass
    decomposed = unicodedata.normalize("NFKD", token)
    folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    _MEMO[token] = folded
    return folded


def tokens(text: str) -> Iterator[str]:
    """Normalised word tokens of ``text``."""
    for match in WORD.finditer(text):
        yield normalize_token(match.group())


def save_warm_start() -> Path:
    """Write (the first entries of) the memo for the next process to pick up, atomically."""
    import pickle  # imported on use, like tempfile: most processes never need it

    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / WARM_START_NAME
    tmp = directory / f".{WARM_START_NAME}.{os.getpid()}"
    with open(tmp, "wb") as fh:
        entries = dict(islice(_MEMO.items(), WARM_START_MAX_ENTRIES))
        pickle.dump(entries, fh, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, target)
    return target


def load_warm_start() -> int:
    """Claim, load and delete the warm-start file; returns how many entries were loaded.

    Claiming by rename means exactly one process gets the file, even if several start at once.
    """
    directory = cache_dir()
    claimed = directory / f".claimed.{os.getpid()}"
    try:
        os.rename(directory / WARM_START_NAME, claimed)
    except OSError:
        return 0
    import pickle

    try:
        with open(claimed, "rb") as fh:
            memo = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError):
        return 0
    finally:
        claimed.unlink(missing_ok=True)
    if not isinstance(memo, dict):
        return 0
    _MEMO.update(memo)
    return len(memo)
