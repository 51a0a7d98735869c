"""Jinja filters: number formatting and escaping for Markdown and HTML.

Templates never compute; they format precomputed view-model values through these filters
(habit 10 of ARCHITECTURE.md, as python-coverage-comment-action's ``template.py``).

Escaping model
--------------
Untrusted text (benchmark names, units, reasons, warning messages, revisions) must appear
*literally* and *inertly* in a GitHub comment, a job summary and the HTML report.

* HTML: jinja2 autoescape (markupsafe) — the standard.
* Markdown: the Markdown environment has a ``finalize`` hook that runs :func:`md_escape` on every
  ``{{ … }}`` value that is not already trusted :class:`~markupsafe.Markup`, so forgetting a filter
  escapes rather than injects. :func:`md_escape` uses, per character:

  - CommonMark backslash escapes for ASCII punctuation that starts inline syntax
    (`` \\ ` * _ ~ [ ] ! | $ ``); ``\\|`` is also the GFM table-cell escape for a pipe
    (GFM spec, "Tables", example 200), ``\\$`` stops GitHub math;
  - entities for ``& < >`` so no raw HTML (``<script>``, ``</details>``, ``<!-- -->``) survives;
  - a zero-width space (``&#8203;``) after ``@`` and ``#``, inside ``://`` / ``www.`` and inside
    ``:shortcode:`` so GitHub does not turn ``@user`` into a mention (a notification!),
    ``#123``/``GH-7`` into issue links, URLs into links or ``:smile:`` into an emoji.
    This is what Dependabot and Renovate do for release notes they quote (``@&#8203;user``).
    An entity such as ``&#64;`` would NOT work: GitHub links mentions in the rendered text.
  - CR/LF become spaces (a table row is one line).

  Benchmark names go into code spans (:func:`md_code`): the fence is one backtick longer than
  the longest backtick run in the name (CommonMark "Code spans"), mentions and references are
  inert inside code, and ``|`` is written ``\\|`` inside table cells, which GFM unescapes.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from markupsafe import Markup

from gate.bidi import show_bidi

DASH = "—"

_MD_BACKSLASH = set("\\`*_~[]!|$")
_MD_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
ZWSP = "&#8203;"
_SHORTCODE = re.compile(r":(?=[a-z+][a-z0-9_+\-]*:)", re.IGNORECASE)
_URL = re.compile(r"(://|www\.)", re.IGNORECASE)
_REF = re.compile(r"(?<=GH)-(?=\d)", re.IGNORECASE)


_MD_TABLE = str.maketrans(
    {
        **{c: "\\" + c for c in _MD_BACKSLASH},
        **_MD_ENTITY,
        "@": "@" + ZWSP,
        "#": "#" + ZWSP,
        "\r": " ",
        "\n": " ",
    }
)
_MD_SPECIAL = re.compile(r"[\\`*_~\[\]!|$&<>@#\r\n:]|www\.|GH-", re.IGNORECASE)


def md_escape(value: object) -> str:
    """Escape untrusted text for GitHub-flavoured Markdown (inline text or a table cell)."""
    text = show_bidi(value if type(value) is str else str(value))
    if not _MD_SPECIAL.search(text):  # fast path: most names and all numbers
        return text
    escaped = text.replace("\r\n", " ").translate(_MD_TABLE)
    escaped = _URL.sub(lambda m: m.group(1)[0] + ZWSP + m.group(1)[1:], escaped)
    escaped = _REF.sub("-" + ZWSP, escaped)
    return _SHORTCODE.sub(":" + ZWSP, escaped)


def md_code(value: object, table: bool = True) -> str:
    """A Markdown code span showing ``value`` literally (``table`` escapes ``|`` for a GFM cell)."""
    text = show_bidi(str(value)).replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    if table and "\\|" in text:
        # GFM's cell splitter pairs a backslash with the next character even inside a code
        # span, so "\\|" cannot be shown in a code span within a table; escaped text can.
        return md_escape(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")):
        text = f" {text} "
    if table:  # GFM unescapes "\|" in a cell before parsing the code span
        text = text.replace("|", "\\|")
    if not text.strip():
        return DASH
    return f"{fence}{text}{fence}"


_SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*:", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_URL_UNSAFE = {c: f"%{ord(c):02X}" for c in " ()<>[]\"'`|\\{}^"}


def safe_url(value: object) -> str:
    """A link target that cannot break out of ``[text](url)`` or an attribute, and only
    http(s) or relative (no ``javascript:``); anything else becomes ``#``.

    Browsers drop leading and trailing C0 controls and spaces and every tab and newline before
    they read the scheme (WHATWG URL Standard, "basic URL parser"), so ``"\x01javascript:"`` and
    ``"java\tscript:"`` are ``javascript:`` URLs. Control characters (C0, DEL, C1) and surrounding
    whitespace are therefore removed first, and the scheme is checked on exactly the text returned."""
    text = "".join(c for c in str(value) if not _CONTROL.match(c)).strip()
    if _SCHEME.match(text) and not text.lower().startswith(("http://", "https://")):
        return "#"
    return "".join(_URL_UNSAFE.get(c, c) for c in text)


def truncate(value: object, limit: int) -> str:
    """Text (a message, a reason) cut at the end to at most ``limit`` characters."""
    text = str(value)
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


FIX_SEPARATOR = " — "  # gate.analysis.compare writes a verdict's reason as "what happened — what to do"


def shorten_reason(value: object, limit: int) -> str:
    """A verdict's reason with its message in at most ``limit`` characters and its fix (after the
    last " — ") whole: the fix is what a reader acts on, and it is the gate's own short text,
    while the message may quote a framework's error at any length. The message is cut in the
    middle (:func:`shorten_middle`), so its start (what happened) and its end (the conclusion)
    stay. A fix longer than ``limit`` (only in a hand-edited analysis.json) is cut at its end."""
    text = str(value)
    if len(text) <= limit:
        return text
    message, sep, fix = text.rpartition(FIX_SEPARATOR)
    if not sep:
        return shorten_middle(text, limit)
    return shorten_middle(message, limit) + sep + truncate(fix, limit)


def shorten_middle(value: object, limit: int) -> str:
    """A name in at most ``limit`` characters, cut in the middle so both ends survive (a table's
    names are shortened by :mod:`gate.render.names`, which drops their shared path first).

    Benchmark names of one suite share their start and differ at the end (sub-benchmarks and
    sizes: ``BenchmarkSum64/4KB``; parametrised cases: ``test_x[case-3]``), so a name cut at the
    end can look like its neighbour; the middle is what they have in common."""
    text = str(value)
    if len(text) <= limit:
        return text
    keep = max(limit - 1, 2)  # one character goes to the ellipsis
    head = keep // 2
    return text[:head] + "…" + text[len(text) - (keep - head) :]


# ---- numbers (format-independent plain text) ------------------------------------------------------


def _finite(x: Any) -> bool:
    t = type(x)
    return (t is float or t is int) and math.isfinite(x)


def fmt_pct(x: Any, signed: bool = True, digits: int = 1) -> str:
    """20.3 -> '+20.3%'; None -> '—'."""
    if not _finite(x):
        return DASH
    s = f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    if s in ("+0.0", "-0.0"):  # a tiny change is not "negative zero"
        s = "±0.0" if signed else "0.0"
    return s + "%"


def fmt_pct_ci(ci: Any) -> str:
    if type(ci) not in (list, tuple) or len(ci) != 2 or not (_finite(ci[0]) and _finite(ci[1])):
        return DASH
    return f"[{fmt_pct(ci[0])}, {fmt_pct(ci[1])}]"


def fmt_fraction_pct(x: Any) -> str:
    """A fraction (0.012) as a percentage ('1.2%'), for stability metrics like the CV."""
    if not _finite(x):
        return DASH
    return fmt_pct(x * 100, signed=False, digits=2 if abs(x) < 0.001 else 1)


def fmt_number(x: Any, sig: int = 3) -> str:
    """Three significant digits without scientific notation in the usual range."""
    if not _finite(x):
        return DASH
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e6 or ax < 1e-3:
        return f"{x:.{sig - 1}e}"
    decimals = max(sig - 1 - math.floor(math.log10(ax)), 0)
    return f"{x:,.{decimals}f}"


def fmt_short(x: Any) -> str:
    """Settings such as a threshold: 3.0 -> '3', 2.5 -> '2.5'."""
    return f"{x:g}" if _finite(x) else DASH


_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_TIME_SCALE = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def split_quantity(x: Any, unit: str) -> tuple[str, str]:
    """(number, unit) with time units rescaled to a readable prefix (0.0123 s -> 12.3 ms)."""
    if not _finite(x):
        return DASH, ""
    if unit in _TIME_UNITS and x != 0:
        seconds = x * _TIME_UNITS[unit]
        for scale, name in _TIME_SCALE:
            if abs(seconds) >= scale * 0.9995:
                return fmt_number(seconds / scale), name
        return fmt_number(seconds / 1e-9), "ns"
    return fmt_number(x), unit


def fmt_duration(seconds: Any) -> str:
    if not _finite(seconds):
        return DASH
    if seconds < 120:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def fmt_p(p: Any) -> str:
    if not _finite(p):
        return DASH
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


# ---- format-aware filters --------------------------------------------------------------------------


class Trusted(str):
    """Markdown produced by a filter (escaped already): the Markdown environment's ``finalize``
    passes it through. A plain ``str`` subclass, because creating markupsafe's ``Markup`` for
    every number of a 5,000-row table costs more than rendering the row."""

    __slots__ = ()


def make_filters(fmt: str) -> dict[str, Callable[..., Any]]:
    """Filters for one output format.

    Markdown: every filter returns :class:`Trusted` text whose untrusted parts (units) it
    escaped itself. HTML: filters return plain ``str`` and Jinja's autoescape escapes all of it
    (numbers have nothing to escape; units do) — except ``code``/``url``, which build markup."""
    md = fmt == "md"
    wrap: Callable[[str], str] = Trusted if md else str
    esc: Callable[[object], str] = md_escape if md else str

    def quantity(x: Any, unit: str) -> str:
        number, u = split_quantity(x, unit)
        return wrap(f"{number} {esc(u)}".rstrip())

    def quantity_ci(ci: Any, unit: str) -> str:
        if not isinstance(ci, Sequence) or len(ci) != 2:
            return wrap(DASH)
        lo, u = split_quantity(ci[0], unit)
        hi, u2 = split_quantity(ci[1], unit)
        if u != u2:  # the two ends fall into different prefixes: say both
            return wrap(f"[{lo} {esc(u)}, {hi} {esc(u2)}]")
        return wrap(f"[{lo}, {hi}] {esc(u)}".rstrip())

    def code(value: object, table: bool = True) -> str:
        if md:
            return Trusted(md_code(value, table=table))
        return Markup(f"<code>{html.escape(show_bidi(str(value)))}</code>")

    def url(value: object) -> str:
        # percent-encoded by safe_url; in HTML attributes autoescape adds the & escaping. A
        # Markdown link destination decodes entity references (CommonMark, "Entity and numeric
        # character references"), so "&#106;avascript:" would become a scheme: & is written &amp;.
        return Trusted(safe_url(value).replace("&", "&amp;")) if md else safe_url(value)

    def plain(f: Callable[..., str]) -> Callable[..., str]:
        # Numbers are produced here from floats: only digits, signs, "%", "[],.", "e" and "—",
        # which are inert in Markdown and HTML alike.
        return lambda *a, **k: wrap(f(*a, **k))

    return {
        "pct": plain(fmt_pct),
        "pct_ci": plain(fmt_pct_ci),
        "frac_pct": plain(fmt_fraction_pct),
        "num": plain(fmt_number),
        "short": plain(fmt_short),
        "duration": plain(fmt_duration),
        "pval": plain(fmt_p),
        "quantity": quantity,
        "quantity_ci": quantity_ci,
        "code": code,
        "trunc": lambda v, n: truncate(v, n),  # plain str: still escaped afterwards
        "mid": lambda v, n: shorten_middle(v, n),  # names: cut in the middle; still escaped
        "reason": lambda v, n: shorten_reason(v, n),  # plain str: still escaped afterwards
        "capfirst": lambda v: (t := str(v))[:1].upper() + t[1:],  # plain str: still escaped
        "esc": lambda v: wrap(esc(v)),
        "url": url,
    }
