"""The go adapter against the real Go toolchain (Debian package `golang-go`): a tiny module with
no dependencies, built offline (GOPROXY=off, GOFLAGS=-mod=mod, GOTOOLCHAIN=local)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gate.adapters.base import BenchmarkSpec, TrialFailure
from gate.adapters.registry import get_adapter
from gate.model import TrialStatus
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial

GO_MOD = "module example.com/fib\n\ngo 1.19\n"
FIB = """package fib

func Fib(n int) int {
	if n < 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}
"""
FIB_TEST = """package fib

import (
	"fmt"
	"os"
	"testing"
)

func TestFib(t *testing.T) {
	if Fib(10) != 55 {
		t.Fatal("Fib(10)")
	}
}

func BenchmarkFib10(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Fib(10)
	}
}

func BenchmarkSizes(b *testing.B) {
	for _, n := range []int{5, 8} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Fib(n)
			}
		})
	}
}

// Needs the package directory as working directory, as `go test` gives it.
func BenchmarkReadsTestdata(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := os.ReadFile("testdata/input.txt"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBroken(b *testing.B) {
	b.Fatal("broken on purpose")
}
"""


def go_env(root: Path) -> dict[str, str]:
    # Reuse a build cache across sessions when one is set, so the standard library is compiled once.
    cache = os.environ.get("GOCACHE") or str(Path("/tmp") / f"ordertrap-gate-gocache-{os.getuid()}")
    return {
        "GOCACHE": cache,
        "GOPATH": str(root / "gopath"),
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GO111MODULE": "on",
    }


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("go")
    root = tmp_path_factory.mktemp("gomod")
    (root / "go.mod").write_text(GO_MOD)
    pkg = root / "fib"
    (pkg / "testdata").mkdir(parents=True)
    (pkg / "testdata" / "input.txt").write_text("x")
    (pkg / "fib.go").write_text(FIB)
    (pkg / "fib_test.go").write_text(FIB_TEST)
    return root


@pytest.mark.slow
@pytest.mark.parametrize("prebuild", [True, False], ids=["prebuilt-in-scratch", "go-test-per-trial"])
def test_discover_and_run(module: Path, tmp_path: Path, prebuild: bool) -> None:
    runner = real_runner(go_env(module))
    adapter = get_adapter("go")
    version = context(module, tmp_path / "scratch")
    settings = {"package": "./fib", "benchtime": "200x", "prebuild": prebuild}
    specs = adapter.discover(version, runner, settings)
    # BenchmarkSizes is replaced by its leaves; BenchmarkBroken fails (b.Fatal) in the listing run,
    # which still lists the others, and stays, to fail in its own trials
    names = [
        "BenchmarkFib10",
        "BenchmarkSizes/n=5",
        "BenchmarkSizes/n=8",
        "BenchmarkReadsTestdata",
        "BenchmarkBroken",
    ]
    assert [s.name for s in specs] == names
    assert all(s.unit == "ns/op" and not s.higher_is_better for s in specs)
    assert len(list((tmp_path / "scratch").glob("go-*.test"))) == (1 if prebuild else 0)
    for spec in (specs[0], specs[3]):  # Fib10, and the one that needs the package directory as cwd
        values = adapter.run_trial(trial(spec, version, 3, settings), runner)
        assert len(values) == 3 and all(v > 0 for v in values)
    sub = adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkSizes/n=8"), version, 2, settings), runner)
    assert len(sub) == 2 and all(v > 0 for v in sub)

    failures = [
        ("BenchmarkSizes", TrialStatus.INVALID, "2 benchmarks matched"),
        ("BenchmarkFib1", TrialStatus.SKIPPED, "no such benchmark in this version"),
        ("BenchmarkSizes/n=6", TrialStatus.SKIPPED, "no such benchmark in this version"),
        ("BenchmarkBroken", TrialStatus.ERROR, "exited with status"),
    ]
    for name, status, words in failures:
        with pytest.raises(TrialFailure) as err:
            adapter.run_trial(trial(BenchmarkSpec(name=name), version, 1, settings), runner)
        assert err.value.status == status and words in err.value.reason


def test_prebuilt_test_binary(module: Path) -> None:
    env = go_env(module)
    binary = module.parent / "fib.test"
    subprocess.run(
        ["go", "test", "-c", "-o", str(binary), "./fib"], cwd=module, env={**os.environ, **env}, check=True
    )
    adapter = get_adapter("go")
    version = context(module / "fib", module.parent / "scratch-bin")
    settings = {"binary": str(binary), "benchtime": "200x", "include": "Fib"}
    specs = adapter.discover(version, real_runner(), settings)
    assert [s.name for s in specs] == ["BenchmarkFib10"]
    values = adapter.run_trial(trial(specs[0], version, 2, settings), real_runner())
    assert len(values) == 2 and all(v > 0 for v in values)
