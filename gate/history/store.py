"""The history store: the only reader and writer of the files on the history branch.

Layout of a store folder (the checkout of the ``ordertrap-history`` branch)::

    ordertrap-history.json      {"schema_version": 1, "format": "ordertrap-history"}
    data/2026-11.jsonl          one line per (run, version, benchmark), appended in commit order

Why this shape: JSON Lines (https://jsonlines.org) appended to one file per calendar month keeps
every night a pure addition (``git diff`` shows only new lines, merges of two appends conflict
only at the file end), bounds each file (a month), and lets an old month be dropped or archived
by deleting one file. Every line is self-describing (commit, date, runner, configuration, source)
so a line never depends on its neighbours. A line is written with sorted keys and no spaces, so
the same entry always gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from gate.errors import InputError
from gate.files.schema import Invalid, Obj, boolean, is_number, join, nullable, obj, one_of, text

# the one JSON reader whose every failure (deep nesting included) is a ValueError; the importers
# parse the tools' files through it too
from gate.jsontext import loads

HISTORY_SCHEMA = 1
FORMAT = "ordertrap-history"
MANIFEST = "ordertrap-history.json"
DATA_DIR = "data"
Source = Literal["nightly", "pr", "import"]
SOURCES: tuple[str, ...] = ("nightly", "pr", "import")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


@dataclass(frozen=True)
class Step:
    """The paired comparison with the version measured just before in the same run (RMIT)."""

    previous: str
    change_pct: float | None
    change_ci: tuple[float, float] | None


@dataclass(frozen=True)
class Entry:
    """One benchmark's summary for one version in one run."""

    run: str  # identifies the run (the nightly log, or the imported file and its run)
    date: str  # UTC, ISO 8601 with a Z: when the run was measured
    seq: int  # position of the version within its run, in commit order (0-based)
    commit: str  # the version (a commit SHA for nightly runs)
    benchmark: str
    unit: str
    higher_is_better: bool
    estimate: float | None
    ci: tuple[float, float] | None
    n: int
    source: Source = "nightly"
    statistic: str = "median"
    confidence: float | None = None
    n_failed: int = 0
    step: Step | None = None
    pr: int | None = None  # the pull request of a `pr` entry: a PR's head is not the branch
    runner: str | None = None
    config: str | None = None  # configuration hash (meta.json) or the importer's description
    extra: dict[str, Any] = field(default_factory=dict)
    # the environment the benchmark ran in (asv env_name, pytest-benchmark's Python): with the
    # runner and the benchmark name (which carries its parameters) it makes one series
    env: str | None = None

    @property
    def environment(self) -> str | None:
        """``env``, or for a line written before ``env`` existed, the asv importer's ``extra.env``
        (so an old store's asv series are split by environment too)."""
        if self.env:
            return self.env
        old = self.extra.get("env") if self.source == "import" else None
        return str(old) if old else None

    @property
    def series_key(self) -> tuple[str, str, str]:
        """One series = one benchmark (with its parameters) on one machine in one environment."""
        return (self.benchmark, self.runner or "", self.environment or "")

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["ci"] = list(self.ci) if self.ci else None
        if self.step is not None:
            d["step"] = {
                "previous": self.step.previous,
                "change_pct": self.step.change_pct,
                "change_ci": list(self.step.change_ci) if self.step.change_ci else None,
            }
        return {k: v for k, v in d.items() if v is not None and v != {}}


def _fail(where: str, what: str) -> InputError:
    return InputError(
        f"{where}: {what}",
        "restore the file from the history branch (`git checkout -- FILE` or `git log -p FILE`); the "
        "store is written only by `ordertrap-gate history add/import`",
    )


# ---- decoding a line (gate/files/schema.py) --------------------------------------------------------
def _finite(value: Any, where: str) -> float | None:
    """A finite number, or null."""
    if value is None:
        return None
    if not is_number(value):
        raise Invalid(where, value, "a finite number")
    return float(value)


def _pair(value: Any, where: str) -> tuple[float, float] | None:
    """``[low, high]`` of finite numbers, or null."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise Invalid(where, value, "[low, high]")
    low, high = (_finite(x, where) for x in value)
    if low is None or high is None:
        raise Invalid(where, value, "a finite number")
    return (low, high)


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise Invalid(where, value, "a non-empty string")
    return value


def _optional_text(value: Any, where: str) -> str | None:
    return None if value is None else text(value, where)


def _date(value: Any, where: str) -> str:
    if not _DATE.match(_name(value, where)):
        raise Invalid(where, value, "UTC ISO 8601 like 2026-11-26T02:17:00Z")
    return str(value)


def _count(value: Any, where: str) -> int:
    if value.__class__ is not int or value < 0:
        raise Invalid(where, value, "a non-negative integer")
    return int(value)


_source = one_of(SOURCES)


def _step(value: Any, where: str) -> Step:
    o = Obj(where, value)
    return Step(
        _name(o.item("previous", None), join(where, "previous")),
        o.field("change_pct", _finite, None),
        o.field("change_ci", _pair, None),
    )


def _entry(o: Obj) -> Entry:
    # a required field absent reads as null, so its message says what it must be
    def required(key: str, decode: Any) -> Any:
        return decode(o.item(key, None), key)

    source = o.field("source", _source, "nightly")
    pr = o.item("pr", None)
    if source == "pr" and (pr is None or pr.__class__ is not int):
        raise Invalid("pr", pr, said="a `pr` entry must name its pull request number (pr)")
    return Entry(
        run=required("run", _name),
        date=required("date", _date),
        seq=required("seq", _count),
        commit=required("commit", _name),
        benchmark=required("benchmark", _name),
        unit=str(o.item("unit", None) or ""),
        higher_is_better=required("higher_is_better", boolean),
        estimate=o.field("estimate", _finite, None),
        ci=o.field("ci", _pair, None),
        n=required("n", _count),
        source=source,  # type: ignore[arg-type]  # one of SOURCES
        statistic=str(o.item("statistic", None) or "median"),
        confidence=o.field("confidence", _finite, None),
        n_failed=o.field("n_failed", _count, 0),
        step=o.field("step", nullable(_step), None),
        pr=pr if source == "pr" else None,
        runner=o.field("runner", _optional_text, None),
        config=o.field("config", _optional_text, None),
        extra=o.field("extra", obj, {}),
        env=o.field("env", _optional_text, None),
    )


def entry_from_json(d: Any, where: str) -> Entry:
    """Validate one line; every problem names the file and line, and the field."""
    try:
        if not isinstance(d, dict):
            raise Invalid("", d, said="a line must be a JSON object")
        return _entry(Obj("", d))
    except Invalid as bad:
        what = bad.said if bad.said else f"{bad.where} must be {bad.expected}, got {bad.value!r}"
        raise _fail(where, what) from None


def _line(e: Entry) -> str:
    return json.dumps(e.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Store:
    """A history folder. ``read()`` returns every entry in stored order; ``append()`` adds runs."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    def exists(self) -> bool:
        self._check_root()
        return self.manifest.is_file()

    def _check_root(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise InputError(
                f"--store {self.root} is a file, not a folder",
                "point --store at the checkout of the history branch, or at a new or empty folder to start one",
            )

    def _check_manifest(self) -> None:
        try:
            doc = loads(self.manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(
                f"{self.manifest}: unreadable ({exc})",
                "point --store at the checkout of the history branch (it holds ordertrap-history.json)",
            ) from exc
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputError(
                f"{self.manifest} is not an ordertrap history manifest",
                "point --store at the checkout of the history branch, or at an empty folder to start one",
            )
        version = doc.get("schema_version")
        if version != HISTORY_SCHEMA:
            raise InputError(
                f"{self.manifest}: history schema_version {version!r}; this ordertrap-gate reads {HISTORY_SCHEMA}",
                "use the ordertrap-gate release that wrote the history (pip install the matching version)",
            )

    def files(self) -> list[Path]:
        return sorted((self.root / DATA_DIR).glob("*.jsonl"))

    def read(self) -> list[Entry]:
        if not self.exists():
            if self.root.is_dir() and not any(self.root.iterdir()):
                return []
            raise InputError(
                f"{self.root} holds no history ({MANIFEST} is missing)",
                "pass --store with the checkout of the history branch; `history add` or `history import` "
                "into an empty folder starts a new history",
            )
        self._check_manifest()
        out: list[Entry] = []
        for path in self.files():
            for where, raw in self._lines(path):
                try:
                    doc = loads(raw)
                except ValueError as exc:
                    raise _fail(where, f"not JSON ({exc})") from exc
                out.append(entry_from_json(doc, where))
        return out

    @staticmethod
    def _lines(path: Path) -> Iterable[tuple[str, str]]:
        """(``file:line``, text) of each non-blank line; a file that is not UTF-8 text is named."""
        try:
            with path.open(encoding="utf-8") as fh:
                for i, raw in enumerate(fh, 1):
                    if raw.strip():
                        yield f"{path}:{i}", raw
        except UnicodeDecodeError as exc:
            raise _fail(str(path), f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
        except OSError as exc:
            raise _fail(str(path), f"unreadable ({exc.strerror or exc})") from exc

    def runs(self, months: Iterable[str] | None = None) -> set[str]:
        """The run ids in the store, or in the month files ``months`` (``YYYY-MM``) only.

        A run's entries all carry its date, so they sit in that date's month file: checking a new
        run against its own month finds every duplicate without reading the whole history."""
        if months is None:
            return {e.run for e in self.read()}
        found: set[str] = set()
        for month in months:
            path = self.root / DATA_DIR / f"{month}.jsonl"
            if path.is_file():
                for where, raw in self._lines(path):
                    try:
                        found.add(str(loads(raw)["run"]))
                    except (ValueError, KeyError, TypeError) as exc:
                        raise _fail(where, f"not a history line ({exc})") from exc
        return found

    def only_new(self, entries: Sequence[Entry]) -> tuple[list[Entry], int]:
        """The entries not yet in the store, and how many were already there.

        An import's entry is the same result when its series, commit and date are (the run id is
        not compared: a grown data.js or a re-saved file gets other ids for the same results, and
        stores written before run ids were content-based keep working). Only the month files of
        the new entries' dates are read."""
        if not entries or not self.exists():
            return list(entries), 0
        self._check_manifest()
        present: set[tuple[Any, ...]] = set()
        for month in sorted({e.date[:7] for e in entries}):
            path = self.root / DATA_DIR / f"{month}.jsonl"
            if path.is_file():
                for where, raw in self._lines(path):
                    try:
                        doc = loads(raw)
                    except ValueError as exc:
                        raise _fail(where, f"not JSON ({exc})") from exc
                    e = entry_from_json(doc, where)
                    present.add((*e.series_key, e.commit, e.date))
        new = [e for e in entries if (*e.series_key, e.commit, e.date) not in present]
        return new, len(entries) - len(new)

    def append(self, entries: Sequence[Entry]) -> dict[str, int]:
        """Append ``entries`` (one or more whole runs) to the month files of their dates.

        A run already in the store is refused as a whole, so adding the same log twice never
        doubles it. Lines are validated before anything is written: bad input loses nothing.
        Returns the lines written per file name.
        """
        if not entries:
            return {}
        for e in entries:
            entry_from_json(e.to_json(), f"new entry {e.benchmark!r} at {e.commit!r}")
        if self.exists():
            self._check_manifest()
        present = self.runs({e.date[:7] for e in entries}) if self.exists() else set()
        again = sorted({e.run for e in entries} & present)
        if again:
            raise InputError(
                f"run(s) already in the history: {', '.join(again[:5])}",
                "nothing to do: that log was added before (`history add --run-id ID` stores a different "
                "run of the same log under a new id)",
            )
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.exists():
            self.manifest.write_text(
                json.dumps({"format": FORMAT, "schema_version": HISTORY_SCHEMA}, indent=2) + "\n",
                encoding="utf-8",
            )
        by_file: dict[str, list[str]] = {}
        for e in entries:
            by_file.setdefault(f"{e.date[:7]}.jsonl", []).append(_line(e))
        (self.root / DATA_DIR).mkdir(exist_ok=True)
        for name, lines in by_file.items():
            path = self.root / DATA_DIR / name
            with path.open("a", encoding="utf-8") as fh:
                fh.write("".join(line + "\n" for line in lines))
        return {name: len(lines) for name, lines in by_file.items()}


def branch_entries(entries: Iterable[Entry], include_pr: bool = False) -> list[Entry]:
    """The entries that describe the branch: PR measurements only when asked for (a PR's head is
    not the branch), ordered by date then stored order (a stable sort keeps a run's commit order)."""
    kept = [e for e in entries if include_pr or e.source != "pr"]
    return sorted(kept, key=lambda e: (e.date, e.run, e.seq))
