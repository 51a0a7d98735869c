"""Typed decoding of the JSON documents the gate reads: the one set of combinators behind
``meta.json`` (gate/files/run_meta.py), ``analysis.json`` (gate/files/analysis_json.py),
``calibration.json`` (gate/files/calibration_json.py), the history store's lines
(gate/history/store.py) and every setting's domain (gate/files/settings.py).

A decoder is a function ``(value, where) -> T`` that returns the value with its declared type or
raises :class:`Invalid` naming the field (``where`` is its path: ``adaptive.rounds[0].seed``), the
value found and what was expected. :class:`Obj` reads one JSON object key by key with such
decoders, fills the default of a key an older file may lack, and keeps the keys it did not read
(:meth:`Obj.rest`: written back unchanged, so a newer file loses nothing).

Each file module turns an :class:`Invalid` into its own message and fix (one style per file: the
messages existing users and tests know), so the rules live here once and the wording there once.

Why a module of combinators rather than msgspec or cattrs: the runtime dependencies are fixed
(docs/development.md, "One schema layer"), the two formats need things those libraries do not
give without as much glue (a lenient read that drops the smallest malformed part and names it,
unknown keys kept for a byte-identical write-back, old files' defaults), and the decoders are a
few dozen lines.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Any, Final, TypeVar

T = TypeVar("T")
Decoder = Callable[[Any, str], T]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final[Any] = _Missing()


class Invalid(Exception):
    """``where`` does not hold what it should: ``value`` (:data:`MISSING` when the key is absent;
    then ``parent`` and ``key`` name it) is not ``expected`` (e.g. ``"a whole number ≥ 0"``).
    ``said``: a rule a type does not state, said whole (``"has 3 rows but 2 benchmarks"``)."""

    def __init__(
        self, where: str, value: Any, expected: str = "", *, parent: str = "", key: str = "", said: str = ""
    ) -> None:
        super().__init__(f"{where} {said}" if said else f"{where}: {value!r}, not {expected}")
        self.where, self.value, self.expected = where, value, expected
        self.parent, self.key, self.said = parent, key, said

    @property
    def missing(self) -> bool:
        return self.value is MISSING


def short(value: object, limit: int = 40) -> str:
    """``repr`` cut to ``limit`` characters (JSON's ``null`` for None: the file's word)."""
    text = "null" if value is None else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def kind(value: Any) -> str:
    return type(value).__name__


def join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


# ---- scalar decoders ----------------------------------------------------------------------------
def is_number(x: Any) -> bool:
    """A finite JSON number (``true``/``false`` are not numbers)."""
    return x.__class__ is not bool and isinstance(x, int | float) and math.isfinite(x)


def text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise Invalid(where, value, "a string")
    return value


def boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise Invalid(where, value, "true or false")
    return value


def integer(value: Any, where: str) -> int:
    if value.__class__ is not int:
        raise Invalid(where, value, "an integer")
    return int(value)


def whole(low: int = 0) -> Decoder[int]:
    """A whole number ≥ ``low`` (``true`` is not one)."""

    def decode(value: Any, where: str) -> int:
        if value.__class__ is not int or value < low:
            raise Invalid(where, value, f"a whole number ≥ {low}")
        return int(value)

    return decode


def number(low: float = -math.inf, below: float = math.inf) -> Decoder[float]:
    """A finite number in [low, below), as written (an int stays an int: a file round-trips)."""
    if low == -math.inf and below == math.inf:
        expected = "a number"
    elif below == math.inf:
        expected = f"a number ≥ {low:g}"
    else:
        expected = f"a number in [{low:g}, {below:g})"

    def decode(value: Any, where: str) -> float:
        if not (is_number(value) and low <= value < below):
            raise Invalid(where, value, expected)
        return value

    return decode


def one_of(choices: Collection[str], expected: str | None = None) -> Decoder[str]:
    said = expected or f"one of {', '.join(choices)}"

    def decode(value: Any, where: str) -> str:
        if value not in choices:
            raise Invalid(where, value, said)
        return str(value)

    return decode


# ---- combinators ----------------------------------------------------------------------------------
def nullable(decode: Decoder[T], suffix: str = " (or null)") -> Decoder[T | None]:
    """``null`` or what ``decode`` accepts (its message says "(or null)")."""

    def decode_nullable(value: Any, where: str) -> T | None:
        if value is None:
            return None
        try:
            return decode(value, where)
        except Invalid as bad:
            if bad.where == where:
                raise Invalid(where, value, bad.expected + suffix) from None
            raise

    return decode_nullable


def obj(value: Any, where: str) -> dict[str, Any]:
    """A JSON object, as it is."""
    if not isinstance(value, dict):
        raise Invalid(where, value, "an object")
    return value


def list_of(item: Decoder[T], expected: str = "a list") -> Decoder[list[T]]:
    """A list whose every item ``item`` decodes (``where[i]`` names a bad one)."""

    def decode(value: Any, where: str) -> list[T]:
        if not isinstance(value, list):
            raise Invalid(where, value, expected)
        return [item(x, f"{where}[{i}]") for i, x in enumerate(value)]

    return decode


def plain_list(test: Callable[[Any], bool], expected: str) -> Decoder[list[Any]]:
    """A list whose items all pass ``test``; one message for the whole list (for long lists of
    numbers or names, where naming the item costs more than it tells)."""

    def decode(value: Any, where: str) -> list[Any]:
        if not isinstance(value, list) or not all(test(x) for x in value):
            raise Invalid(where, value, expected)
        return value

    return decode


def entries(item: Callable[[Obj], T]) -> Decoder[dict[str, T]]:
    """An object of objects by name (``where['NAME']`` names a bad one), each read by ``item``."""

    def decode(value: Any, where: str) -> dict[str, T]:
        return {str(n): item(Obj(f"{where}[{n!r}]", v)) for n, v in obj(value, where).items()}

    return decode


def pair(value: Any, where: str) -> list[float]:
    """``[low, high]``: two finite numbers."""
    if not (isinstance(value, list) and len(value) == 2 and is_number(value[0]) and is_number(value[1])):
        raise Invalid(where, value, "[low, high]")
    return value


class Obj:
    """One JSON object named ``where`` in messages, read key by key.

    ``lenient``: a key declared ``added`` (absent from files an older writer made) takes its
    default; otherwise (the writer's own check) every key must be there."""

    def __init__(self, where: str, value: Any, *, lenient: bool = True) -> None:
        self.where, self.doc, self.lenient = where, obj(value, where), lenient
        self._read: set[str] = set()

    def item(self, key: str, default: Any = MISSING, *, added: bool = False) -> Any:
        """The raw value of ``key``; ``default`` when it is absent and ``added`` in a lenient read
        (or always, without ``added``, when a default is given)."""
        self._read.add(key)
        if key in self.doc:
            return self.doc[key]
        if default is not MISSING and (self.lenient or not added):
            return default
        raise Invalid(join(self.where, key), MISSING, "present", parent=self.where or "the document", key=key)

    def field(self, key: str, decode: Decoder[T], default: Any = MISSING, *, added: bool = False) -> T:
        """``decode`` of ``key`` (a default is returned as it is, not decoded)."""
        value = self.item(key, default, added=added)
        if value is default and key not in self.doc:
            return value
        return decode(value, join(self.where, key))

    def child(self, key: str, default: Any = MISSING, *, added: bool = False) -> Obj:
        """``key`` as an :class:`Obj` of its own (same leniency)."""
        return Obj(join(self.where, key), self.item(key, default, added=added), lenient=self.lenient)

    def opt_child(self, key: str, default: Any = MISSING, *, added: bool = False) -> Obj | None:
        value = self.item(key, default, added=added)
        if value is None:
            return None
        nullable(obj)(value, join(self.where, key))
        return Obj(join(self.where, key), value, lenient=self.lenient)

    def rest(self) -> dict[str, Any]:
        """The keys not read (kept and written back unchanged)."""
        return {k: v for k, v in self.doc.items() if k not in self._read}
