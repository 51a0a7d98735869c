"""Small, explicit models of the GitHub-flavoured Markdown rules the escaping relies on.

Used by the render tests to check structure without a Markdown library:

* :func:`split_cells` splits a table row the way cmark-gfm's table extension does: a backslash
  pairs with the next character (so ``\\|`` is content and ``\\\\|`` is a backslash then a
  separator), every other ``|`` separates cells — also inside code spans.
* :func:`strip_code_spans` removes CommonMark code spans (a backtick run closed by the next run
  of exactly the same length), leaving the text whose Markdown/HTML is actually interpreted.
"""

from __future__ import annotations

import re


def split_cells(line: str) -> list[str]:
    cells, cur, i = [], [], 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            cur.append(line[i : i + 2])
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur))
    # a row "| a | b |" has an empty piece before the first and after the last pipe
    return cells[1:-1] if line.startswith("|") and line.rstrip().endswith("|") else cells


def tables(text: str) -> list[list[str]]:
    """Consecutive lines starting with '|' grouped into tables."""
    out: list[list[str]] = []
    cur: list[str] = []
    for line in text.splitlines():
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def strip_code_spans(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):  # an escaped backtick opens nothing
            out.append(text[i : i + 2])
            i += 2
            continue
        m = re.match(r"`+", text[i:])
        if m:
            fence = m.group(0)
            close = re.compile(r"(?<!`)" + fence + r"(?!`)")
            found = close.search(text, i + len(fence))
            if found:
                out.append("\x00CODE\x00")
                i = found.end()
                continue
            out.append(fence)
            i += len(fence)
            continue
        out.append(text[i])
        i += 1
    return "".join(out)
