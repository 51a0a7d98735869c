"""``pytest-benchmark``: one benchmark test per pytest process, values from ``--benchmark-json``.

One trial runs, in the version's worktree with the version's interpreter (``VersionContext.python``,
e.g. a venv the build step created there, so base and head can have different dependencies)::

    PYTHON -m pytest NODEID -q -p no:cacheprovider -o addopts= --assert=plain
        -p ordertrap_pytest_plugin --benchmark-enable --benchmark-json=SCRATCH/x.json
        --benchmark-storage=file://SCRATCH/benchmarks
        --benchmark-min-rounds=N --benchmark-max-time=0

``--benchmark-max-time=0`` with ``--benchmark-min-rounds=N`` makes pytest-benchmark run exactly
N rounds (``rounds = max(ceil(max_time / duration), min_rounds)`` in ``BenchmarkFixture._raw``);
each round still calibrates its inner loop count, and the values are the JSON's
``stats.data`` (seconds per call, one per round). A test that fixes its own rounds
(``benchmark.pedantic(rounds=...)`` or ``@pytest.mark.benchmark(min_rounds=...)``) decides
itself: extra rounds are dropped from the front (they count as warmup), too few is an error.

Worktrees stay clean: the project's ``addopts`` (autosave, ``--benchmark-json`` into the tree)
and ``PYTEST_ADDOPTS`` are overridden, the cache provider is off, bytecode is not written
(``PYTHONDONTWRITEBYTECODE=1``), and every file goes to the version's scratch dir.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gate import jsontext
from gate.adapters._common import (
    benchmark_missing,
    filter_discovered,
    one_match,
    read_text,
    require_nonempty,
    scratch_file,
    string_list,
    string_option,
    with_configured,
)
from gate.adapters.base import (
    BenchmarkSpec,
    ProcessResult,
    ProcessRunner,
    SourceHint,
    TrialFailure,
    TrialRequest,
    VersionContext,
    check_finite,
)
from gate.errors import ConfigError, RunError
from gate.files import bounded
from gate.model import TrialStatus

PLUGIN_DIR = Path(__file__).resolve().parent / "_pytest_plugin"
PLUGIN = "ordertrap_pytest_plugin"
# pytest's exit codes (pytest.ExitCode)
_TESTS_FAILED, _INTERRUPTED, _INTERNAL, _USAGE, _NO_TESTS = 1, 2, 3, 4, 5
_NOT_FOUND = ("ERROR: not found:", "ERROR: file or directory not found:")


def detail_of(output: str, prefixes: tuple[str, ...]) -> str:
    """The first line of ``output`` starting with one of ``prefixes``, cut to 200 characters."""
    line = next((ln for ln in output.splitlines() if ln.startswith(prefixes)), "")
    return line.removeprefix("ERROR: ").strip()[:200]


def _bool(options: Mapping[str, Any], key: str, default: bool) -> bool:
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(
            f"[pytest-benchmark] {key} must be true or false, got {value!r}",
            f"[pytest-benchmark] {key} = {str(default).lower()}",
        )
    return value


def process_env(options: Mapping[str, Any]) -> dict[str, str]:
    """Variables added to the driver's environment for every pytest process."""
    existing = os.environ.get("PYTHONPATH", "")
    env = {
        # the plugin is a single module in its own directory, so nothing else can be shadowed
        "PYTHONPATH": str(PLUGIN_DIR) + (os.pathsep + existing if existing else ""),
        "PYTHONDONTWRITEBYTECODE": "1",  # no __pycache__ in the worktree
        "PYTEST_ADDOPTS": "",  # a CI-wide PYTEST_ADDOPTS must not add -n auto, --benchmark-autosave, ...
        # The trial's pytest is its own session, never an xdist worker: pytest-benchmark disables
        # itself when this variable is set (session.py: xdist_active), and a gate started from a
        # pytest-xdist worker would pass the worker's value on, so every trial would measure nothing.
        # Empty reads as unset there; the runner can add variables, not remove them.
        "PYTEST_XDIST_WORKER": "",
    }
    if not _bool(options, "plugin_autoload", True):
        # Skips importing every installed pytest plugin (hypothesis, cov, ...); then only
        # pytest-benchmark and the gate's plugin are loaded (pytest docs, "Plugin discovery").
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def base_argv(version: VersionContext, options: Mapping[str, Any]) -> list[str]:
    argv = [*version.prefix, version.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts="]
    argv += ["--rootdir", str(version.workdir), "-p", PLUGIN]
    # pytest-benchmark creates its storage dir (default ./.benchmarks) at configure time, even
    # with --collect-only and without autosave: point it at the scratch dir.
    argv.append(f"--benchmark-storage=file://{version.scratch / 'benchmarks'}")
    if not _bool(options, "plugin_autoload", True):
        argv += ["-p", "pytest_benchmark.plugin"]
    if not _bool(options, "assert_rewrite", False):
        # Rewriting re-parses every test module and plugin in each process, and with bytecode
        # writing off nothing is cached; plain asserts only shorten failure messages.
        argv.append("--assert=plain")
    return argv


def _failure(result: ProcessResult, what: str) -> TrialFailure:
    if result.timed_out:
        return TrialFailure(
            TrialStatus.TIMEOUT,
            f"{what} did not finish within the timeout; raise [suite].timeout or lower measurements",
        )
    lines = (result.stdout + "\n" + result.stderr).strip().splitlines()
    failed = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR ", "E   "))]
    detail = (failed or lines[-1:] or [""])[0][:200]
    output = result.stdout + result.stderr
    if result.returncode == _USAGE and "unrecognized arguments: --benchmark" in output:
        return TrialFailure(
            TrialStatus.ERROR,
            f"{what}: pytest does not know the --benchmark options; "
            "install pytest-benchmark>=4 in this version's environment ([suite] build)",
        )
    if result.returncode == _USAGE and any(line.startswith(_NOT_FOUND) for line in output.splitlines()):
        # pytest's own verdict on the node id given on the command line (main.py, perform_collect:
        # "not found: ..." for a test id, "file or directory not found: ..." for the file); the
        # same arguments collected fine in discovery, so it is the node id that is missing.
        return benchmark_missing(what, "pytest: " + detail_of(output, _NOT_FOUND))
    if result.returncode == _NO_TESTS:
        return TrialFailure(
            TrialStatus.INVALID,
            f"{what}: pytest collected no test for the node id (exit status 5); check the node id and "
            "the -k/-m/--deselect options in [pytest-benchmark] args",
        )
    return TrialFailure(TrialStatus.ERROR, f"{what}: pytest exited with status {result.returncode}: {detail}")


class PytestBenchmarkAdapter:
    name = "pytest-benchmark"
    # its keys in .ordertrap.toml (tests/unit/config/test_project_config_typos.py checks them
    # against what this module reads): its own table's, and a [[benchmark]] entry's besides the core keys
    table_keys: tuple[str, ...] = ("path", "args", "min_time", "assert_rewrite", "plugin_autoload", "include")
    benchmark_keys: tuple[str, ...] = ()

    def source_hint(self, name: str) -> SourceHint:
        """The test file of the node id (``bench/test_x.py::test_y[param]``)."""
        return SourceHint(path=name.split("::")[0])

    def discover(
        self, version: VersionContext, run: ProcessRunner, options: Mapping[str, Any]
    ) -> list[BenchmarkSpec]:
        listing = scratch_file(version, "pytest-list", ".json")
        path = string_option(options, "path", self.name, "")
        argv = [*base_argv(version, options), "--collect-only", f"--ordertrap-list={listing}"]
        argv += string_list(options, "args", self.name)
        if path:
            argv.append(path)
        result = run(argv, cwd=version.workdir, timeout=300, env=process_env(options))
        if result.returncode not in (0, _NO_TESTS) or result.timed_out:
            raise RunError(
                f"collecting pytest benchmarks failed in {version.name}: {_failure(result, 'pytest --collect-only').reason}",
                "make `python -m pytest --collect-only` work in the worktree (dependencies: [suite] build), "
                "or set [pytest-benchmark] path",
            )
        try:
            names = jsontext.loads(bounded.read_text(listing))
        except (OSError, ValueError, bounded.UnsafeFile) as exc:
            raise RunError(
                f"pytest wrote no benchmark list in {version.name} ({exc})",
                "check that the gate's plugin can load: no `-p no:...` or PYTHONPATH override in [pytest-benchmark] args",
            ) from None
        names = filter_discovered([str(n) for n in names], options, self.name)
        specs = with_configured([BenchmarkSpec(name=n) for n in names], options, self.name, unit="s")
        require_nonempty([x.name for x in specs], self.name, f"{version.name} ({path or 'pytest testpaths'})")
        return specs

    def run_trial(self, request: TrialRequest, run: ProcessRunner) -> list[float]:
        options = request.options
        spec = request.benchmark
        version = request.version
        out = scratch_file(version, spec.name, ".json")
        argv = [*base_argv(version, options), "-rfE", "--benchmark-enable"]
        argv.append(f"--benchmark-json={out}")
        argv += [f"--benchmark-min-rounds={request.measurements}", "--benchmark-max-time=0"]
        min_time = string_option(options, "min_time", self.name, "")
        if min_time:
            argv.append(f"--benchmark-min-time={min_time}")
        argv += [*string_list(options, "args", self.name), spec.name]
        what = f"pytest-benchmark {spec.name!r}"
        result = run(argv, cwd=version.workdir, timeout=request.timeout, env=process_env(options))
        if result.returncode != 0 or result.timed_out:
            raise _failure(result, what)
        if not out.exists():
            # pytest-benchmark writes no JSON when no test used the fixture ("Not saving anything")
            raise TrialFailure(
                TrialStatus.INVALID,
                f"{what}: the test ran but measured nothing; it must call the benchmark fixture "
                "(or it skipped itself)",
            )
        return parse_json(read_text(out, what), spec.name, request.measurements, what)


def parse_json(text: str, requested: str, measurements: int, what: str) -> list[float]:
    try:
        benches = jsontext.loads(text)["benchmarks"]
        names = [str(b.get("fullname") or b["name"]) for b in benches]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrialFailure(
            TrialStatus.INVALID, f"{what}: output is not pytest-benchmark JSON ({exc!s:.80})"
        ) from None
    if not names:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: the test ran but measured nothing; it must call the benchmark fixture (or it was skipped)",
        )
    one_match(names, requested, what)
    data = (benches[0].get("stats") or {}).get("data")
    if not isinstance(data, list):
        raise TrialFailure(
            TrialStatus.INVALID, f"{what}: stats.data is missing; upgrade pytest-benchmark to >= 3.1"
        )
    try:
        values = [float(v) for v in data]
    except (TypeError, ValueError):
        raise TrialFailure(TrialStatus.INVALID, f"{what}: stats.data holds a non-number") from None
    if len(values) < measurements:
        raise TrialFailure(
            TrialStatus.INVALID,
            f"{what}: got {len(values)} rounds, wanted {measurements}; "
            "remove the rounds fixed by benchmark.pedantic(rounds=...) or @pytest.mark.benchmark",
        )
    return check_finite(values[len(values) - measurements :], what)
