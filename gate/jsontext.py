"""Parsing JSON the gate did not write in this process (calibration.json, meta.json, the JSON a
benchmark framework writes): a problem with the text is always a :class:`ValueError`, never a crash.

:func:`json.loads` recurses once per nested array or object, so ``[[[[…]]]]`` nested deeper than
the interpreter's recursion limit (1,000 by default) raises :class:`RecursionError`, which
``except json.JSONDecodeError`` does not catch. No file the gate writes nests more than a few
levels, so such a text is malformed input, reported like any other syntax error.
"""

from __future__ import annotations

import json
from typing import Any


class JSONNestingError(ValueError):
    """The text nests arrays/objects deeper than the parser can follow."""


def loads(text: str, *, strict: bool = True) -> Any:
    """:func:`json.loads`, with nesting too deep for the parser raised as :class:`JSONNestingError`.

    A leading UTF-8 byte order mark (U+FEFF, as Windows editors write it) is skipped: RFC 8259
    §8.1 lets parsers ignore it, and it carries no content. ``strict=False`` allows control
    characters inside strings, as :func:`json.loads` does."""
    try:
        return json.loads(text.removeprefix("\ufeff"), strict=strict)
    except RecursionError:
        raise JSONNestingError(
            "arrays or objects are nested too deeply to parse (more than about 1,000 levels)"
        ) from None
