"""One typed configuration for the run engine, built once from ``.ordertrap.toml``.

The file is read with :mod:`tomllib`. Nothing in it is silently ignored, because an ignored
typo (``iteratons = 50``, ``higher_is_beter = true``, ``[Full]``) would make a run measure or
judge something else: an unknown top-level table, an unknown key in ``[suite]``, ``[full]``, a
``[[benchmark]]`` entry or the active adapter's table is a :class:`ConfigError` with a "did you
mean" fix. The allowed keys are the ones the code reads: each adapter in ``gate/adapters/``
declares beside its class what it reads from its table (``table_keys``) and from
``BenchmarkSpec.options`` (``benchmark_keys``); ``tests/unit/config/test_project_config_typos.py`` checks both against the
adapters' source and the README. The whole file is kept in ``ProjectConfig.raw``.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate import safe_regex
from gate.adapters.base import BenchmarkSpec
from gate.adapters.registry import ADAPTER_NAMES, benchmark_keys, table_keys
from gate.errors import ConfigError
from gate.files import settings
from gate.files.schema import Invalid
from gate.files.settings import SANDBOX_MODES, Setting
from gate.model import MAX_VALUES
from gate.rounds.config import AdaptiveConfig, check_max_rounds, parse_duration
from gate.statistic import CALIBRATED, STATISTIC_FORMS

ADAPTERS: tuple[str, ...] = ADAPTER_NAMES

SUITE_KEYS: dict[str, str] = {
    "adapter": "framework adapter: " + " | ".join(ADAPTERS),
    "build": "shell command run once per version inside its worktree, untimed",
    "build_timeout": "seconds allowed for the build step (default 3600)",
    "reset": "shell command run before every suite run (OrderSage's reset procedure)",
    "reset_timeout": "seconds allowed for one reset (default: timeout)",
    "timeout": "seconds per trial (default 120)",
    "python": "interpreter for Python-based adapters; {worktree} is substituted",
    "prefix": "command prefix put before every benchmark command; shlex-split, {worktree} substituted",
    "include": "list of regexes: keep only benchmarks whose name matches one of them",
    "exclude": "list of regexes: drop benchmarks whose name matches one of them",
    "pass_env": "environment variable names passed to benchmarks although they look like secrets",
    "sandbox": 'isolation of builds, benchmarks and resets (bubblewrap): "auto" | "on" | "off"',
    "network": "network in the sandbox: true | false (default: off on a pull request's event, on elsewhere)",
    "unix_sockets": "let the sandbox create unix sockets (socket(AF_UNIX)): true | false (default false)",
    "caches": "directories the sandbox binds writable at their place, shared by base and head (build caches)",
    "toolchains": "directories under $HOME the sandbox binds read-only besides those found on PATH",
    "randomise_layout": "pad each trial's environment by a random 0-4096 bytes (default true; gate/engine/layout.py)",
    "give_up_after": "skip a benchmark's remaining trials in a version once its first N all failed (default 2; 0 = never)",
    "statistic": 'what summarises each version: "p10" (default), "median", "mean", any "pNN", or "calibrated" '
    "(each benchmark's statistic as the nightly calibration chose it; docs/statistics.md)",
    "tail_check": "compare every benchmark's 90th percentile too and name a change of the slowest values "
    "beside the verdict: true (default) | false (skips that second comparison; docs/statistics.md)",
}
FULL_KEYS: tuple[str, ...] = ("suite_runs", "iterations", "measurements")
BENCHMARK_CORE_KEYS: tuple[str, ...] = (
    "name",
    "command",
    "value",
    "unit",
    "higher_is_better",
    "threshold_pct",
    "statistic",
)
VALUE_SOURCES: tuple[str, ...] = ("stdout", "wall")
# Each adapter's own keys (its table's, and a [[benchmark]] entry's besides the core keys) are
# declared beside its class: gate.adapters.registry.table_keys / benchmark_keys.
# Every top-level table of .ordertrap.toml; only `run` reads the file (gate/config/config_files.py).
TOP_LEVEL_TABLES: tuple[str, ...] = ("suite", "full", "benchmark", *ADAPTERS, "adaptive")
# [adaptive]: follow-up rounds within a time budget (gate/rounds/config.py)
ADAPTIVE_KEYS: tuple[str, ...] = ("budget", "max_rounds")
# Timeouts end in select.poll(milliseconds), which takes at most 2**31 - 1 ms (24.8 days).
MAX_SECONDS = 1_000_000
# MAX_VALUES (gate/model.py): values per benchmark and version that [full] may ask for
# (suite_runs × iterations × measurements); meta.json's benchmark_configs are held to it as well.


@dataclass(frozen=True)
class FullConfig:
    """The full execution configuration (µOpTime's (s, i, m) tuple, one instance)."""

    suite_runs: int = 3
    iterations: int = 5
    measurements: int = 1

    @property
    def values(self) -> int:
        """Values per benchmark and version a full run gives."""
        return self.suite_runs * self.iterations * self.measurements


@dataclass(frozen=True)
class SuiteConfig:
    adapter: str = "command"
    build: str = ""
    build_timeout: float = 3600.0
    reset: str = ""
    reset_timeout: float | None = None
    timeout: float = 120.0
    python: str = "python3"
    prefix: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    pass_env: tuple[str, ...] = ()
    sandbox: str = "auto"
    # None: off on a pull request's event, on elsewhere (gate/engine/sandbox.py)
    network: bool | None = None
    # False: socket(AF_UNIX) refused in the sandbox (gate/engine/seccomp.py); true for runtimes
    # that need one (Python 3.14's forkserver, multiprocessing managers, JVM attach)
    unix_sockets: bool = False
    caches: tuple[str, ...] = ()  # writable binds, "~/" = $HOME
    toolchains: tuple[str, ...] = ()  # read-only binds under $HOME, "~/" = $HOME
    # Mytkowicz et al. (ASPLOS'09): environment size alone shifts timings; a random size per
    # trial turns that bias into noise (gate/engine/layout.py). On by default: it costs nothing.
    randomise_layout: bool = True
    # gate/engine/give_up.py: a benchmark × version whose first N trials all failed (or whose
    # first trial timed out) is not run further; 0 runs every planned trial whatever happens
    give_up_after: int = 2
    # None: analyze's default (gate/analysis/compare.py AnalysisSettings.statistic)
    statistic: str | None = None
    # None: analyze's default (on: AnalysisSettings.tail_statistic, gate/analysis/tail.py)
    tail_check: bool | None = None


@dataclass(frozen=True)
class ProjectConfig:
    path: Path
    config_hash: str  # "sha256:<hex>" of the file's bytes
    suite: SuiteConfig
    full: FullConfig
    benchmarks: tuple[BenchmarkSpec, ...]
    adapter_table: Mapping[str, Any]  # the [<adapter>] table, e.g. [go]
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)
    adaptive: AdaptiveConfig = field(default_factory=AdaptiveConfig)

    def adapter_options(self) -> dict[str, Any]:
        """What adapters receive as ``options``: the adapter's own table (``[go]``, ...) plus
        ``"benchmarks"`` = the raw ``[[benchmark]]`` list of dicts (gate/adapters/_common.py)."""
        return {**dict(self.adapter_table), "benchmarks": list(self.raw.get("benchmark", []))}

    def selects(self, name: str) -> bool:
        """``[suite] include``/``exclude`` filter on discovered benchmark names (re.search
        semantics, in time linear in the name: :mod:`gate.safe_regex`)."""
        if self.suite.include and not any(safe_regex.search(p, name) for p in self.suite.include):
            return False
        return not any(safe_regex.search(p, name) for p in self.suite.exclude)

    def override(self, spec: BenchmarkSpec) -> BenchmarkSpec:
        """Apply ``unit``/``higher_is_better`` of a ``[[benchmark]]`` entry with the same name.

        Only keys the entry actually sets override the adapter's values: an entry that merely names
        a Go sub-benchmark must keep the adapter's ``ns/op``, not the default unit ``s``."""
        raw_entries = {str(e.get("name")): e for e in self.raw.get("benchmark", []) if isinstance(e, Mapping)}
        for configured in self.benchmarks:
            if configured.name == spec.name:
                given = raw_entries.get(spec.name, {})
                return BenchmarkSpec(
                    name=spec.name,
                    unit=configured.unit if "unit" in given else spec.unit,
                    higher_is_better=configured.higher_is_better
                    if "higher_is_better" in given
                    else spec.higher_is_better,
                    command=spec.command if spec.command is not None else configured.command,
                    options={**dict(spec.options), **dict(configured.options)},
                )
        return spec


def _closest(key: str, allowed: tuple[str, ...] | list[str]) -> str | None:
    """The allowed name ``key`` was probably meant to be (``Full`` -> ``full``), or None."""
    folded = {a.lower().replace("-", "_"): a for a in allowed}
    if key.lower().replace("-", "_") in folded:
        return folded[key.lower().replace("-", "_")]
    close = difflib.get_close_matches(key, list(allowed), n=1)
    return close[0] if close else None


def _misplaced(key: str, where: str, adapter: str = "") -> str:
    """Where an unknown ``key`` of table ``where`` belongs instead (``timeout`` in ``[go]``), or ""."""
    if not where.startswith("[[benchmark]]") and key in benchmark_keys(adapter):
        return f"`{key}` belongs in the [[benchmark]] entry it applies to: move it there"
    for table, keys in (("[suite]", list(SUITE_KEYS)), ("[full]", list(FULL_KEYS))):
        if key in keys and where != table:
            return f"`{key}` belongs in {table}: move it there"
    if where.startswith("[[benchmark]]"):
        readers = [a for a in ADAPTERS if key in benchmark_keys(a)]
        if readers:
            return f"`{key}` is read only by the {' and '.join(readers)} adapter: remove it"
        if key in table_keys(adapter):
            return f"`{key}` is a key of the [{adapter}] table (it applies to all benchmarks): move it there"
    elif where == "[command]":
        return "[command] takes no keys: the benchmarks and their settings are [[benchmark]] tables"
    elif key in ("benchmark", "benchmarks"):
        return "list the benchmarks as [[benchmark]] tables"
    tables = [f"[{a}]" for a in ADAPTERS if key in table_keys(a)]
    if tables:
        return f"`{key}` is read only by the {' / '.join(tables)} table: remove it"
    return ""


def _unknown_keys(
    table: Mapping[str, Any], allowed: tuple[str, ...] | list[str], where: str, adapter: str = ""
) -> None:
    for key in table:
        if key not in allowed:
            # a [suite]/[full] key or a per-benchmark option is moved, not renamed ([jmh] params is
            # not a misspelt `args`); for other keys a close name in this table is the likelier fix
            owned = (*SUITE_KEYS, *FULL_KEYS, *benchmark_keys(adapter))
            placed = _misplaced(key, where, adapter)
            moved_first = bool(placed) and key in owned
            close = None if moved_first or key in ("benchmark", "benchmarks") else _closest(key, allowed)
            action = f"did you mean `{close}`? rename it" if close else placed
            listed = ", ".join(allowed) if allowed else "none"
            scope = where.split(" #")[0]  # "[[benchmark]] #2 ('x')" -> "[[benchmark]]"
            raise ConfigError(
                f"unknown key `{key}` in {where}",
                f"{action or 'remove or rename it'}; allowed keys in {scope}: {listed} (docs/configuration.md: Configuration)",
            )


def _top_level(raw: Mapping[str, Any], path: Path) -> None:
    """Every top-level table must be one the gate reads: ``[Full]`` or ``[[benchmarks]]`` would
    otherwise be dropped without a word and the run would use the defaults."""
    for key, value in raw.items():
        if key in TOP_LEVEL_TABLES:
            continue
        if isinstance(value, dict):
            shown = f"table [{key}]"
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            shown = f"table [[{key}]]"
        else:
            shown = f"top-level key `{key}`"
        # a [suite]/[full] key is moved, not renamed (`iterations` is not a misspelt [criterion])
        close = None if key in SUITE_KEYS or key in FULL_KEYS else _closest(key, TOP_LEVEL_TABLES)
        if close:
            action = (
                f"did you mean [[{close}]]? rename it"
                if close == "benchmark"
                else f"did you mean [{close}]? rename it"
            )
        elif key in SUITE_KEYS or key in FULL_KEYS:
            table = "suite" if key in SUITE_KEYS else "full"
            action = f"`{key}` belongs in [{table}]: move it below the [{table}] line"
        else:
            action = "remove or rename it"
        allowed = ", ".join("[[benchmark]]" if t == "benchmark" else f"[{t}]" for t in TOP_LEVEL_TABLES)
        raise ConfigError(
            f"unknown {shown} in {path}",
            f"{action}; allowed tables: {allowed} (docs/configuration.md: Configuration)",
        )


def _positive_int(value: Any, where: str, setting: Setting[int]) -> int:
    try:
        return setting.value(value, where)
    except Invalid:
        raise ConfigError(
            f"{where} must be a positive integer, got {value!r}",
            f"set {where} = 1 or more, a whole number without a decimal point or exponent (TOML reads "
            "1e3 and 3.0 as floats)",
        ) from None


def _count(value: Any, where: str) -> int:
    """A whole number ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(
            f"{where} must be a whole number ≥ 0, got {value!r}",
            f"set {where} = 2 (the default), or 0 to never give up (docs/running.md)",
        )
    return value


def _positive_float(value: Any, where: str, default: int = 120) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(
            f"{where} must be a positive number of seconds, got {value!r}", f"set {where} = {default}"
        )
    if not math.isfinite(value) or value > MAX_SECONDS:
        # TOML allows nan and inf; they would pass the check above and then fail every trial.
        raise ConfigError(
            f"{where} must be a finite number of seconds up to {MAX_SECONDS}, got {value!r}",
            f"set {where} = {default}; for no practical limit write a large finite number such as "
            "86400 (a day): nan and inf are not timeouts",
        )
    return float(value)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string, got {value!r}", f'quote it: {where} = "..."')
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false, got {value!r}", f"write {where} = true")
    return value


def _threshold_pct(value: Any, where: str) -> float:
    """A per-benchmark relevant change in % (gate/analysis/compare.py: the verdict's threshold),
    in the one domain analyze's --threshold-pct, the action input and meta.json also use
    (:data:`gate.files.settings.THRESHOLD_PCT`)."""
    try:
        return settings.THRESHOLD_PCT.value(value, where)
    except Invalid as bad:
        raise ConfigError(
            f"{where}: threshold_pct must be {settings.THRESHOLD_PCT.expected}, got {value!r} "
            f"({settings.THRESHOLD_PCT.problem(bad)})",
            "write e.g. threshold_pct = 10 (a change below 10 % is then `unchanged`)",
        ) from None


def _statistic(value: Any, where: str) -> str:
    """A statistic name (:data:`gate.files.settings.STATISTIC`), canonical: "p10", "median", "mean"."""
    try:
        return settings.STATISTIC.value(value, where)
    except Invalid:
        raise ConfigError(
            f"{where}: statistic = {value!r} is not a statistic the gate knows",
            f'write statistic = "p10" (the default), "median", "mean", "pNN" ({STATISTIC_FORMS}), or, in '
            '[suite], "calibrated" (each benchmark\'s statistic as the nightly calibration chose it)',
        ) from None


def _regexes(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of regular expressions", f'write {where} = ["^parse"]')
    for pattern in value:
        try:
            safe_regex.compile_filter(pattern)
        except re.error as exc:
            raise ConfigError(
                f"{where}: invalid regular expression {pattern!r}: {exc}", "fix the pattern"
            ) from None
        except safe_regex.UnsafePattern as exc:
            raise ConfigError(f"{where}: {pattern!r}: {exc}", exc.fix) from None
    return tuple(value)


def _env_names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v) for v in value
    ):
        raise ConfigError(
            f"{where} must be a list of environment variable names, got {value!r}",
            f'write {where} = ["DATABASE_URL"]',
        )
    return tuple(value)


def _paths(value: Any, where: str) -> tuple[str, ...]:
    """Absolute directories, or ``~/...`` for one under ``$HOME`` (expanded by the sandbox)."""
    if not isinstance(value, list) or not all(
        isinstance(v, str) and (v.startswith("/") or v.startswith("~/")) and "\0" not in v for v in value
    ):
        raise ConfigError(
            f"{where} must be a list of absolute paths or paths starting with ~/, got {value!r}",
            f'write {where} = ["~/.cache/go-build", "/var/cache/ccache"]',
        )
    return tuple(value)


def _suite(table: Mapping[str, Any]) -> SuiteConfig:
    _unknown_keys(table, list(SUITE_KEYS), "[suite]")
    adapter = _string(table.get("adapter", "command"), "[suite].adapter")
    if adapter not in ADAPTERS:
        close = difflib.get_close_matches(adapter, ADAPTERS, n=1)
        raise ConfigError(
            f"unknown adapter {adapter!r} in [suite].adapter",
            (f"did you mean {close[0]!r}? " if close else "") + "use one of " + ", ".join(ADAPTERS),
        )
    prefix_raw = table.get("prefix", "")
    if isinstance(prefix_raw, list) and all(isinstance(p, str) for p in prefix_raw):
        prefix = tuple(prefix_raw)
    else:
        try:
            prefix = tuple(shlex.split(_string(prefix_raw, "[suite].prefix")))
        except ValueError as exc:
            raise ConfigError(f"[suite].prefix cannot be split: {exc}", "balance the quotes") from None
    reset_timeout = table.get("reset_timeout")
    sandbox = _string(table.get("sandbox", "auto"), "[suite].sandbox")
    if settings.SANDBOX.problem_of(sandbox) is not None:
        raise ConfigError(
            f"[suite].sandbox = {sandbox!r} is not one of {', '.join(SANDBOX_MODES)}",
            'write sandbox = "auto" (the default), "on" or "off" (docs/running.md: Secrets and the sandbox)',
        )
    return SuiteConfig(
        adapter=adapter,
        build=_string(table.get("build", ""), "[suite].build"),
        build_timeout=_positive_float(table.get("build_timeout", 3600), "[suite].build_timeout", 3600),
        reset=_string(table.get("reset", ""), "[suite].reset"),
        reset_timeout=None
        if reset_timeout is None
        else _positive_float(reset_timeout, "[suite].reset_timeout"),
        timeout=_positive_float(table.get("timeout", 120), "[suite].timeout"),
        python=_string(table.get("python", "python3"), "[suite].python"),
        prefix=prefix,
        include=_regexes(table.get("include", []), "[suite].include"),
        exclude=_regexes(table.get("exclude", []), "[suite].exclude"),
        pass_env=_env_names(table.get("pass_env", []), "[suite].pass_env"),
        sandbox=sandbox,
        network=None if table.get("network") is None else _bool(table["network"], "[suite].network"),
        unix_sockets=_bool(table.get("unix_sockets", False), "[suite].unix_sockets"),
        caches=_paths(table.get("caches", []), "[suite].caches"),
        toolchains=_paths(table.get("toolchains", []), "[suite].toolchains"),
        randomise_layout=_bool(table.get("randomise_layout", True), "[suite].randomise_layout"),
        give_up_after=_count(table.get("give_up_after", 2), "[suite].give_up_after"),
        statistic=_statistic(table["statistic"], "[suite]") if "statistic" in table else None,
        tail_check=None
        if table.get("tail_check") is None
        else _bool(table["tail_check"], "[suite].tail_check"),
    )


def _full(table: Mapping[str, Any]) -> FullConfig:
    _unknown_keys(table, FULL_KEYS, "[full]")
    defaults = FullConfig()
    full = FullConfig(
        suite_runs=_positive_int(
            table.get("suite_runs", defaults.suite_runs), "[full].suite_runs", settings.SUITE_RUNS
        ),
        iterations=_positive_int(
            table.get("iterations", defaults.iterations), "[full].iterations", settings.ITERATIONS
        ),
        measurements=_positive_int(
            table.get("measurements", defaults.measurements), "[full].measurements", settings.MEASUREMENTS
        ),
    )
    if settings.values_problem(full.suite_runs, full.iterations, full.measurements, MAX_VALUES) is not None:
        raise ConfigError(
            f"[full] asks for suite_runs × iterations × measurements = {full.suite_runs} × {full.iterations} "
            f"× {full.measurements} values per benchmark and version, more than {MAX_VALUES:,}",
            "lower [full].suite_runs, iterations or measurements (the defaults 3 × 5 × 1 suit most suites; "
            "docs/configuration.md: Configuration)",
        )
    return full


def _adaptive(table: Any) -> AdaptiveConfig:
    if not isinstance(table, dict):
        raise ConfigError("[adaptive] must be a table", 'write it as [adaptive] with budget = "15m"')
    _unknown_keys(table, ADAPTIVE_KEYS, "[adaptive]")
    return AdaptiveConfig(
        budget_s=parse_duration(table.get("budget", 0), "[adaptive].budget"),
        max_rounds=check_max_rounds(
            table.get("max_rounds", AdaptiveConfig().max_rounds), "[adaptive].max_rounds"
        ),
    )


def _benchmarks(entries: Any, adapter: str) -> tuple[BenchmarkSpec, ...]:
    if entries is None:
        return ()
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError("`benchmark` must be an array of tables", "write each one as [[benchmark]]")
    specs: list[BenchmarkSpec] = []
    seen: set[str] = set()
    allowed = (*BENCHMARK_CORE_KEYS, *benchmark_keys(adapter))
    for i, entry in enumerate(entries, start=1):
        where = f"[[benchmark]] #{i}"
        label = f"{where} ({entry['name']!r})" if isinstance(entry.get("name"), str) else where
        _unknown_keys(entry, allowed, label, adapter)
        if "name" not in entry:
            raise ConfigError(f"{where} has no name", 'add name = "..." to it')
        name = _string(entry["name"], f"{where}.name")
        if not name or name in seen:
            raise ConfigError(
                f"{where}: benchmark name {name!r} is empty or repeated", "give each benchmark a unique name"
            )
        seen.add(name)
        command = entry.get("command")
        if command is not None:
            command = _string(command, f"{where}.command")
        elif adapter == "command":
            raise ConfigError(
                f"benchmark {name!r} has no command", 'add command = "..." (the command adapter runs it)'
            )
        value = _string(entry.get("value", "stdout"), f"{where}.value")
        if value not in VALUE_SOURCES:
            raise ConfigError(
                f"benchmark {name!r}: value = {value!r} is not one of {VALUE_SOURCES}",
                'use value = "stdout" (last number printed) or "wall" (elapsed seconds)',
            )
        hib = entry.get("higher_is_better", False)
        if not isinstance(hib, bool):
            raise ConfigError(
                f"benchmark {name!r}: higher_is_better must be true or false", "write true or false"
            )
        options = {k: v for k, v in entry.items() if k not in ("name", "command", "unit", "higher_is_better")}
        options["value"] = value
        if "threshold_pct" in entry:
            options["threshold_pct"] = _threshold_pct(entry["threshold_pct"], f"benchmark {name!r}")
        if "statistic" in entry:
            options["statistic"] = _statistic(entry["statistic"], f"benchmark {name!r}")
            if options["statistic"] == CALIBRATED:
                raise ConfigError(
                    f'benchmark {name!r}: statistic = "calibrated" names no statistic for one benchmark',
                    'leave statistic out of the entry (with [suite] statistic = "calibrated" the '
                    'calibration\'s choice applies to it), or name one: "p10", "median", "pNN"',
                )
        specs.append(
            BenchmarkSpec(
                name=name,
                unit=_string(entry.get("unit", "s"), f"{where}.unit"),
                higher_is_better=hib,
                command=command,
                options=options,
            )
        )
    return tuple(specs)


def parse_config(data: bytes, path: Path) -> ProjectConfig:
    """Parse the bytes of a config file (pure; :func:`load_config` reads the file)."""
    try:
        # A leading byte order mark (U+FEFF, as Windows editors write it) is the encoding's
        # signature, not content (Unicode §23.8): "utf-8-sig" skips it; the hash covers the bytes.
        raw = tomllib.loads(data.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}", "fix the syntax at the position shown"
        ) from None
    except RecursionError:
        # tomllib recurses once per nested array or inline table
        raise ConfigError(
            f"{path} is not valid TOML: arrays or inline tables are nested too deeply to parse",
            "no key of .ordertrap.toml needs more than two levels of brackets: remove the nesting "
            "(docs/configuration.md: Configuration)",
        ) from None
    _top_level(raw, path)
    suite_table = raw.get("suite", {})
    full_table = raw.get("full", {})
    if not isinstance(suite_table, dict) or not isinstance(full_table, dict):
        raise ConfigError(f"{path}: [suite] and [full] must be tables", "write them as [suite] and [full]")
    suite = _suite(suite_table)
    benchmarks = _benchmarks(raw.get("benchmark"), suite.adapter)
    if suite.adapter == "command" and not benchmarks:
        raise ConfigError(
            f"{path} lists no benchmarks for the command adapter",
            'add a [[benchmark]] table with name = "..." and command = "..."',
        )
    adapter_table = raw.get(suite.adapter, {})
    if not isinstance(adapter_table, dict):
        raise ConfigError(f"{path}: [{suite.adapter}] must be a table", f"write it as [{suite.adapter}]")
    _unknown_keys(adapter_table, table_keys(suite.adapter), f"[{suite.adapter}]", suite.adapter)
    return ProjectConfig(
        path=path,
        config_hash="sha256:" + hashlib.sha256(data).hexdigest(),
        suite=suite,
        full=_full(full_table),
        benchmarks=benchmarks,
        adapter_table=adapter_table,
        raw=raw,
        adaptive=_adaptive(raw.get("adaptive", {})),
    )


def load_config(path: str | Path) -> ProjectConfig:
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            f"config file {p} does not exist",
            "pass --config PATH, or create .ordertrap.toml (docs/configuration.md: Configuration)",
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot read config file {p}: {exc}", "check the path and its permissions"
        ) from None
    return parse_config(data, p)


def substitute_worktree(text: str, worktree: Path) -> str:
    return text.replace("{worktree}", str(worktree))
