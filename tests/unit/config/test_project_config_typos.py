"""Typos in .ordertrap.toml are errors, not silently ignored keys; timeouts must be finite.

The allowed keys are checked against what the code actually reads (the adapters' source) and
what the README documents, so a new adapter key cannot be rejected by a stale list.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
import sys
import tomllib
from pathlib import Path

import pytest

from gate.adapters import _common
from gate.adapters.registry import ADAPTER_NAMES, adapter_class, benchmark_keys, get_adapter, table_keys
from gate.config.project_config import (
    ADAPTERS,
    BENCHMARK_CORE_KEYS,
    FULL_KEYS,
    MAX_SECONDS,
    SUITE_KEYS,
    TOP_LEVEL_TABLES,
    load_config,
    parse_config,
)
from gate.engine.process import SubprocessRunner
from gate.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]
# the README and the manual it links (docs/frameworks.md holds the adapter tables)
README = "\n".join(
    p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
)
BENCH = "[[benchmark]]\nname = 'a'\ncommand = 'true'\n"
# what each adapter declares beside its class
ADAPTER_KEYS = {name: table_keys(name) for name in ADAPTER_NAMES}
BENCHMARK_OPTION_KEYS = {name: benchmark_keys(name) for name in ADAPTER_NAMES if benchmark_keys(name)}


def parse(text: str):
    return parse_config(text.encode(), Path("c.toml"))


def error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as exc:
        parse(text)
    return exc.value


# ---- [[benchmark]] entries ----------------------------------------------------------------------


def test_misspelled_higher_is_better_is_an_error_with_the_right_spelling():
    err = error(BENCH + "unit = 'ops/s'\nhigher_is_beter = true\n")
    assert "higher_is_beter" in err.message and "'a'" in err.message
    assert "did you mean `higher_is_better`?" in err.fix


def test_misspelled_name_is_reported_as_a_typo_not_as_a_missing_name():
    err = error("[[benchmark]]\nnme = 'a'\ncommand = 'true'\n")
    assert "`nme`" in err.message and "did you mean `name`?" in err.fix


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_documented_benchmark_keys_keep_working(adapter):
    c = parse(
        f"[suite]\nadapter = '{adapter}'\n"
        "[[benchmark]]\nname = 'a'\ncommand = 'true'\nvalue = 'wall'\nunit = 'ops/s'\nhigher_is_better = true\n"
    )
    (b,) = c.benchmarks
    assert b.higher_is_better is True and b.unit == "ops/s" and b.options["value"] == "wall"


def test_jmh_params_is_a_benchmark_key_of_jmh_only():
    c = parse("[suite]\nadapter = 'jmh'\n[[benchmark]]\nname = 'p.C.m'\nparams = {size = '100'}\n")
    assert c.benchmarks[0].options["params"] == {"size": "100"}
    err = error("[suite]\nadapter = 'go'\n[[benchmark]]\nname = 'BenchmarkX'\nparams = {size = '100'}\n")
    assert "`params`" in err.message and "jmh" in err.fix


def test_an_adapter_table_key_in_a_benchmark_entry_points_to_the_table():
    err = error("[suite]\nadapter = 'go'\n[[benchmark]]\nname = 'BenchmarkX'\nargs = ['-benchmem']\n")
    assert "`args`" in err.message and "[go]" in err.fix


# ---- top-level tables ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle", "hint"),
    [
        ("[Full]\nsuite_runs = 1\n" + BENCH, "[Full]", "did you mean [full]?"),
        ("[suit]\ntimeout = 5\n" + BENCH, "[suit]", "did you mean [suite]?"),
        ("[[benchmarks]]\nname = 'a'\ncommand = 'true'\n", "[[benchmarks]]", "did you mean [[benchmark]]?"),
        ("[suite]\nadapter = 'go'\n[Go]\nbenchtime = '1s'\n", "[Go]", "did you mean [go]?"),
        ("[pytest_benchmark]\npath = 'x'\n" + BENCH, "[pytest_benchmark]", "[pytest-benchmark]"),
        ("adapter = 'go'\n[suite]\ntimeout = 5\n", "`adapter`", "belongs in [suite]"),
        ("iterations = 3\n" + BENCH, "`iterations`", "belongs in [full]"),
        ("[analysis]\nthreshold = 5\n" + BENCH, "[analysis]", "allowed tables: [suite]"),
    ],
)
def test_unknown_top_level_tables_are_errors(text, needle, hint):
    err = error(text)
    assert needle in err.message and "c.toml" in err.message
    assert hint in err.fix


def test_every_adapter_table_is_allowed_even_when_another_adapter_is_active():
    tables = "".join(f"[{name}]\n{ADAPTER_KEYS[name][0]} = 'x'\n" for name in ADAPTERS if ADAPTER_KEYS[name])
    c = parse(tables + BENCH + "[command]\n")
    assert set(c.raw) == set(TOP_LEVEL_TABLES) - {"suite", "full", "adaptive"}


def test_the_allowed_top_level_tables_are_what_the_gate_reads():
    assert TOP_LEVEL_TABLES[:3] == ("suite", "full", "benchmark")
    assert TOP_LEVEL_TABLES[3:] == (*ADAPTER_NAMES, "adaptive")  # [adaptive]: run's follow-up rounds
    # Only `run` reads the config (through gate/config/config_files.py; config_changes.py parses
    # head's copy to compare it); if another stage starts reading its own table from it,
    # add that table to TOP_LEVEL_TABLES (and to docs/configuration.md "Configuration").
    readers = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "gate").rglob("*.py")
        if re.search(r"\b(load_config|parse_config)\(|\.raw\b", p.read_text(encoding="utf-8"))
    )
    assert readers == [
        "gate/config/config_changes.py",
        "gate/config/config_files.py",
        "gate/config/project_config.py",
    ]


# ---- adapter tables -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle", "hint"),
    [
        (
            "[suite]\nadapter = 'go'\n[go]\nbenchtme = '1s'\n",
            "`benchtme` in [go]",
            "did you mean `benchtime`?",
        ),
        ("[command]\nfoo = 1\n" + BENCH, "`foo` in [command]", "[[benchmark]]"),
        ("[command]\ninclude = 'x'\n" + BENCH, "`include` in [command]", "[suite]"),
        ("[suite]\nadapter = 'go'\n[go]\ntimeout = 5\n", "`timeout` in [go]", "belongs in [suite]"),
        ("[suite]\nadapter = 'jmh'\n[jmh]\nwarmup = 1\n", "`warmup` in [jmh]", "warmup_iterations"),
        ("[suite]\nadapter = 'gbench'\n[gbench]\nbenchmarks = []\n", "`benchmarks`", "[[benchmark]]"),
    ],
)
def test_unknown_keys_in_the_active_adapter_table_are_errors(text, needle, hint):
    err = error(text)
    assert needle in err.message and hint in err.fix


def _readme_section(heading: str) -> str:
    # the sections moved from the README into docs/*.md one heading level up
    heading = heading[1:]
    start = README.index("\n" + heading) + 1
    level = heading.index(" ")
    ends = [
        e
        for e in (README.find("\n" + "#" * n + " ", start + len(heading)) for n in range(1, level + 1))
        if e != -1
    ]
    return README[start : min(ends)] if ends else README[start:]


def _table_keys(section: str) -> set[str]:
    """The first-column keys of the section's Markdown tables (`iteration_time` / `warmup_time`)."""
    keys: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            keys.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return keys


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_every_key_the_readme_documents_for_an_adapter_is_accepted(adapter):
    documented = _table_keys(_readme_section(f"### `[{adapter}]`"))
    assert documented <= set(ADAPTER_KEYS[adapter]), f"README documents keys that [{adapter}] rejects"
    # `include` is documented once for all discovering adapters ("Benchmark frameworks").
    assert set(ADAPTER_KEYS[adapter]) - documented <= {"include"}
    table = "".join(f"{key} = 'x'\n" for key in sorted(documented))
    parse(f"[suite]\nadapter = '{adapter}'\n{BENCH}[{adapter}]\n{table}")


def test_readme_configuration_tables_match_the_accepted_keys():
    config = _readme_section("## Configuration")
    suite = config[config.index("**`[suite]`**") : config.index("**`[[benchmark]]`**")]
    bench = config[config.index("**`[[benchmark]]`**") : config.index("**`[full]`**")]
    full = config[config.index("**`[full]`**") : config.index("**Adapter tables**")]
    assert _table_keys(suite) == set(SUITE_KEYS)
    assert _table_keys(full) == set(FULL_KEYS)
    assert _table_keys(bench) == set(BENCHMARK_CORE_KEYS) | {
        k for v in BENCHMARK_OPTION_KEYS.values() for k in v
    }
    (example,) = re.findall(r"```toml\n(.*?)```", config, re.S)
    parse(example)


# ---- the key lists against the adapters' source -------------------------------------------------

_READERS = {"string_option", "string_list", "positive_int", "_bool"}


def _is_table(node: ast.expr) -> bool:
    """The adapter's table: the ``options`` parameter of discover/run, or ``request.options``."""
    return (isinstance(node, ast.Name) and node.id == "options") or (
        isinstance(node, ast.Attribute)
        and node.attr == "options"
        and isinstance(node.value, ast.Name)
        and node.value.id == "request"
    )


def _is_options(node: ast.expr) -> bool:
    """One benchmark's keys: ``spec.options`` (any BenchmarkSpec but the request's table)."""
    return isinstance(node, ast.Attribute) and node.attr == "options" and not _is_table(node)


def _keys_read(source: str) -> tuple[set[str], set[str]]:
    """(keys read from an adapter's settings, keys read from BenchmarkSpec.options) in ``source``."""
    settings: set[str] = set()
    options: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            args = node.args
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            key = args[1] if len(args) >= 2 else None
            if isinstance(key, ast.Constant) and name in _READERS and _is_table(args[0]):
                settings.add(str(key.value))
            if name == "filter_discovered":
                settings.add("include")  # _common.filter_discovered reads settings["include"]
            if isinstance(func, ast.Attribute) and func.attr == "get" and args:
                key = args[0]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    if _is_table(func.value):
                        settings.add(key.value)
                    elif _is_options(func.value):
                        options.add(key.value)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            if _is_table(node.value):
                settings.add(node.slice.value)
            elif _is_options(node.value):
                options.add(node.slice.value)
    return settings, options


def test_adapter_names_agree():
    assert ADAPTERS == ADAPTER_NAMES
    assert [adapter_class(name).name for name in ADAPTER_NAMES] == list(ADAPTER_NAMES)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_accepted_keys_are_exactly_what_the_adapter_reads(adapter):
    source = inspect.getsource(sys.modules[type(get_adapter(adapter)).__module__])
    settings, options = _keys_read(source)
    # `benchmarks` is the [[benchmark]] list the run engine adds (Config.adapter_options)
    assert settings - {"benchmarks"} == set(ADAPTER_KEYS[adapter])
    assert options <= set(BENCHMARK_CORE_KEYS) | set(BENCHMARK_OPTION_KEYS.get(adapter, ()))
    assert set(BENCHMARK_OPTION_KEYS.get(adapter, ())) <= options


def test_shared_helpers_read_only_include_and_benchmarks():
    # A new shared key read in _common.py must be added to the table_keys of the adapters using it and to this test.
    settings, options = _keys_read(inspect.getsource(_common))
    assert settings == {"include", "benchmarks"}
    assert options == set()


def test_the_scanner_sees_every_kind_of_read():
    settings, options = _keys_read(
        "string_option(options, 'a', n, '')\nstring_list(request.options, 'b', n)\n"
        "options.get('c', 1)\noptions['d']\n_bool(options, 'e', True)\nfilter_discovered(x, options, n)\n"
        "spec.options.get('f')\nspec.options['g']\npositive_int({'runs': 1}, 'runs', n, None)\n"
    )
    assert settings == {"a", "b", "c", "d", "e", "include"} and options == {"f", "g"}


# ---- configs in the repository still load -------------------------------------------------------


def test_demo_project_config_loads():
    c = load_config(ROOT / "examples" / "demo-project" / ".ordertrap.toml")
    assert len(c.benchmarks) == 6


def test_every_toml_config_in_the_repository_loads():
    skip = {".venv", "build", "demo-output", ".git", "node_modules"}
    configs = [
        p
        for p in ROOT.rglob("*.toml")
        if not skip & set(p.relative_to(ROOT).parts) and p.name != "pyproject.toml"
    ]
    assert configs
    for path in configs:
        assert tomllib.loads(path.read_text(encoding="utf-8"))  # valid TOML
        load_config(path)


# ---- timeouts must be finite --------------------------------------------------------------------


@pytest.mark.parametrize("key", ["timeout", "build_timeout", "reset_timeout"])
@pytest.mark.parametrize("value", ["nan", "inf", "+inf", "-nan", "1e300", "1_000_001"])
def test_non_finite_or_huge_timeouts_are_rejected(key, value):
    err = error(f"[suite]\n{key} = {value}\n" + BENCH)
    assert f"[suite].{key}" in err.message
    assert f"[suite].{key} = " in err.fix and "finite" in err.fix


@pytest.mark.parametrize("key", ["timeout", "build_timeout", "reset_timeout"])
def test_negative_infinity_is_rejected_as_not_positive(key):
    err = error(f"[suite]\n{key} = -inf\n" + BENCH)
    assert "positive" in err.message and f"[suite].{key} = " in err.fix


def test_large_finite_timeouts_are_accepted():
    c = parse("[suite]\ntimeout = 86400\nbuild_timeout = 1e6\nreset_timeout = 0.5\n" + BENCH)
    assert (c.suite.timeout, c.suite.build_timeout, c.suite.reset_timeout) == (86400.0, 1e6, 0.5)
    assert all(math.isfinite(t) for t in (c.suite.timeout, c.suite.build_timeout))


def test_the_largest_accepted_timeout_works_in_the_real_runner(tmp_path):
    # The runner waits with select.poll(milliseconds), which overflows above 2**31 - 1 ms: the
    # upper bound keeps every accepted timeout usable (a larger one failed every trial).
    result = SubprocessRunner()("echo 7", cwd=tmp_path, timeout=float(MAX_SECONDS))
    assert (result.returncode, result.stdout.strip(), result.timed_out) == (0, "7", False)


def test_jmh_params_in_the_adapter_table_is_moved_not_renamed(tmp_path: Path) -> None:
    """`params` belongs in [[benchmark]]: the message says where to move it, not a look-alike key."""
    text = '[suite]\nadapter = "jmh"\n[jmh]\nparams = {size = "10"}\n'
    with pytest.raises(ConfigError) as err:
        parse_config(text.encode(), tmp_path / "c.toml")
    assert "[[benchmark]] entry" in err.value.fix and "args" not in err.value.fix.split(";")[0]
