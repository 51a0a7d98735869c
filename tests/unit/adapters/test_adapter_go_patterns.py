"""Go sub-benchmark patterns (``[[benchmark]] name = "BenchmarkSum64/*"``) on a fake
ProcessRunner: matching, the one listing run per version and its cache. The real toolchain runs
in tests/integration/test_go_patterns.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec
from gate.adapters.gotest_output import leaves, pattern_matches
from gate.adapters.registry import get_adapter
from gate.errors import RunError
from gate.model import TrialStatus
from tests.fakes.process_runner import FakeRunner, arg_value, failed, ok
from tests.unit.adapters.test_adapter_missing import GO, HEADER, failure, request, version


def test_go_parent_with_sub_benchmarks_points_to_a_pattern(tmp_path: Path) -> None:
    out = f"{HEADER}BenchmarkSum/4B-2 \t 10 \t 5.0 ns/op\nBenchmarkSum/64B-2 \t 10 \t 9.0 ns/op\nPASS\n"
    err = failure("go", request(tmp_path, BenchmarkSpec(name="BenchmarkSum"), GO, n=1), FakeRunner([ok(out)]))
    assert err.status == TrialStatus.INVALID and "2 benchmarks matched" in err.reason
    assert '[[benchmark]] name = "BenchmarkSum/*"' in err.reason


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("BenchmarkSum64/*", "BenchmarkSum64/4B", True),
        ("BenchmarkSum64/*", "BenchmarkSum64/a/b", True),  # deeper levels are free
        ("BenchmarkSum64/*", "BenchmarkSum64", False),  # the pattern has two levels
        ("BenchmarkSum64/*", "BenchmarkSum64String/4B", False),  # levels are matched whole
        ("BenchmarkSum*/*B", "BenchmarkSum64String/4B", True),
        ("BenchmarkSum*/*B", "BenchmarkSum64String/4KB-x", False),
        ("Benchmark*", "BenchmarkPlain", True),
        ("BenchmarkX/size=[8]*", "BenchmarkX/size=[8]_big", True),  # only * is special
        ("BenchmarkX/size=?", "BenchmarkX/size=8", False),
    ],
)
def test_pattern_matches_level_by_level(pattern: str, name: str, matches: bool) -> None:
    assert pattern_matches(pattern, name) is matches


def test_leaves_are_the_names_without_a_sub_benchmark() -> None:
    names = ["BenchmarkSum", "BenchmarkSum/4B", "BenchmarkSum/64B", "BenchmarkSum/1KB"]
    assert leaves(names) == ["BenchmarkSum/4B", "BenchmarkSum/64B", "BenchmarkSum/1KB"]
    assert leaves(["BenchmarkA", "BenchmarkA/x", "BenchmarkA/x/y", "BenchmarkB"]) == [
        "BenchmarkA/x/y",
        "BenchmarkB",
    ]


LIST = "BenchmarkSum\nBenchmarkSumString\nBenchmarkPlain\nok  \texample.com/sum\t0.01s\n"
SUBS = (
    f"{HEADER}BenchmarkSum\nBenchmarkSum/4B\nBenchmarkSum/4B-2 \t 1 \t 3.0 ns/op\nBenchmarkSum/64B\n"
    "BenchmarkSum/64B-2 \t 1 \t 9.0 ns/op\nBenchmarkSumString\nBenchmarkSumString/4B\n"
    "BenchmarkSumString/4B-2 \t 1 \t 4.0 ns/op\nPASS\n"
)


def test_go_pattern_is_expanded_by_one_listing_run_and_cached(tmp_path: Path) -> None:
    settings = {
        **GO,
        "args": ["-benchmem"],
        "benchmarks": [
            {"name": "BenchmarkSum*/*", "unit": "B/op"},
            {"name": "BenchmarkSum/64B", "higher_is_better": True},  # a literal entry keeps its own
        ],
    }
    runner = FakeRunner([ok(LIST), ok(SUBS)])
    specs = get_adapter("go").discover(version(tmp_path), runner, settings)
    got = [(s.name, s.unit, s.options.get("pattern")) for s in specs]
    assert got == [
        ("BenchmarkPlain", "ns/op", None),  # parents with sub-benchmarks are replaced by them
        ("BenchmarkSum/4B", "B/op", "BenchmarkSum*/*"),
        ("BenchmarkSumString/4B", "B/op", "BenchmarkSum*/*"),
        ("BenchmarkSum/64B", "ns/op", None),
    ]
    listing = runner.calls[1].argv
    # one run lists the patterns' parents and the other discovered benchmarks (for sub-benchmarks)
    assert arg_value(listing, "-bench") == "^(?:BenchmarkSum|BenchmarkSumString|BenchmarkPlain)$"
    assert arg_value(listing, "-benchtime") == "1x" and listing[-2:] == ["-v", "."] and "-benchmem" in listing
    # a resume of the same run discovers again: the listing comes from the cache, no benchmark runs
    again = FakeRunner([ok(LIST)])
    assert [s.name for s in get_adapter("go").discover(version(tmp_path), again, settings)] == [
        s.name for s in specs
    ]
    assert len(again.calls) == 1


def test_go_listing_cache_follows_the_binary_content(tmp_path: Path) -> None:
    binary = version(tmp_path).workdir / "sum.test"
    binary.write_bytes(b"one")
    settings = {"binary": "sum.test", "benchmarks": [{"name": "BenchmarkSum/*"}]}
    adapter = get_adapter("go")
    assert len(adapter.discover(version(tmp_path), FakeRunner([ok(LIST), ok(SUBS)]), settings)) == 4
    binary.write_bytes(b"two")  # rebuilt with other code: listed again
    runner = FakeRunner([ok(LIST), ok(f"{HEADER}BenchmarkSum\nBenchmarkSum/8B\nPASS\n")])
    assert "BenchmarkSum/8B" in [s.name for s in adapter.discover(version(tmp_path), runner, settings)]
    assert runner.calls[1].argv[:2] == ["./sum.test", "-test.run"]


def test_go_pattern_without_its_parent_in_this_version_adds_nothing(tmp_path: Path) -> None:
    settings = {**GO, "benchmarks": [{"name": "BenchmarkGone/*"}]}
    plain = f"{HEADER}BenchmarkSum\nBenchmarkSumString\nBenchmarkPlain\nPASS\n"  # no sub-benchmarks here
    specs = get_adapter("go").discover(version(tmp_path), FakeRunner([ok(LIST), ok(plain)]), settings)
    assert [s.name for s in specs] == ["BenchmarkSum", "BenchmarkSumString", "BenchmarkPlain"]


def test_go_failed_listing_run_stops_with_the_command_to_fix(tmp_path: Path) -> None:
    settings = {**GO, "benchmarks": [{"name": "BenchmarkSum/*"}]}
    crash = failed(2, stdout=f"{HEADER}BenchmarkSum\nBenchmarkSum/4B\npanic: index out of range\n", stderr="")
    with pytest.raises(RunError) as err:
        get_adapter("go").discover(version(tmp_path), FakeRunner([ok(LIST), crash]), settings)
    assert "BenchmarkSum" in err.value.message and "panic: index out of range" in err.value.message
    assert "-benchtime 1x" in err.value.fix and "[[benchmark]] entries instead of a pattern" in err.value.fix


def test_go_discovered_parent_is_replaced_by_its_leaves(tmp_path: Path) -> None:
    specs = get_adapter("go").discover(version(tmp_path), FakeRunner([ok(LIST), ok(SUBS)]), GO)
    assert [(s.name, s.options.get("pattern")) for s in specs] == [
        ("BenchmarkSum/4B", "BenchmarkSum/*"),
        ("BenchmarkSum/64B", "BenchmarkSum/*"),
        ("BenchmarkSumString/4B", "BenchmarkSumString/*"),
        ("BenchmarkPlain", None),
    ]


def test_go_failed_listing_of_discovered_benchmarks_stops_with_the_ways_out(tmp_path: Path) -> None:
    crash = failed(2, stdout=f"{HEADER}BenchmarkSum\nBenchmarkPlain\npanic: boom\n", stderr="")
    with pytest.raises(RunError) as err:
        get_adapter("go").discover(version(tmp_path), FakeRunner([ok(LIST), crash]), GO)
    assert "panic: boom" in err.value.message and "-benchtime 1x" in err.value.fix
    assert "[go] include" in err.value.fix and "[[benchmark]]" in err.value.fix


FATAL = (
    f"{HEADER}BenchmarkSum\nBenchmarkSum/4B\nBenchmarkSum/4B-2 \t 1 \t 3.0 ns/op\nBenchmarkSumString\n"
    "    sum_test.go:9: needs a fixture\n--- FAIL: BenchmarkSumString\nBenchmarkPlain\n"
    "BenchmarkPlain-2 \t 1 \t 2.0 ns/op\nFAIL\n"
)


def test_go_listing_with_a_failing_benchmark_lists_the_others_and_keeps_it(tmp_path: Path) -> None:
    """b.Fatal in one benchmark: Go goes on, ends with FAIL and status 1; nothing is unknown."""
    specs = get_adapter("go").discover(version(tmp_path), FakeRunner([ok(LIST), failed(1, "", FATAL)]), GO)
    assert [s.name for s in specs] == ["BenchmarkSum/4B", "BenchmarkSumString", "BenchmarkPlain"]


def test_go_listing_that_stopped_before_the_last_benchmark_stops_the_run(tmp_path: Path) -> None:
    """Status 1 but BenchmarkPlain never started (os.Exit(1) in BenchmarkSumString): its names are unknown."""
    stopped = FATAL.split("BenchmarkPlain\n")[0]
    with pytest.raises(RunError) as err:
        get_adapter("go").discover(version(tmp_path), FakeRunner([ok(LIST), failed(1, "", stopped)]), GO)
    assert "listing the sub-benchmarks" in err.value.message and "[go] include" in err.value.fix


def test_go_listing_cache_is_the_gates_own_and_nothing_in_scratch_is_read_or_written(tmp_path: Path) -> None:
    """The cache lives in the version's gate_cache (OUT/cache, read-only in the sandbox): scratch,
    which the benchmarks write, gets no listing, and links planted there are left alone."""
    settings = {**GO, "benchmarks": [{"name": "BenchmarkSum*/*"}]}
    ctx = version(tmp_path)
    ctx.scratch.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("keep")
    for i in range(3):  # where a cache in scratch would go is not guessable: plant a few links
        (ctx.scratch / f"go-list-{i}.json").symlink_to(victim)
    get_adapter("go").discover(ctx, FakeRunner([ok(LIST), ok(SUBS)]), settings)
    assert victim.read_text() == "keep"
    assert sorted(p.name for p in ctx.scratch.iterdir()) == [f"go-list-{i}.json" for i in range(3)]
    assert ctx.gate_cache is not None
    assert [p.suffix for p in ctx.gate_cache.iterdir()] == [".json"]
