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
    (root / "fib.go").write_text(FIB)
    (root / "fib_test.go").write_text(FIB_TEST)
    return root


def test_discover_and_run_with_go_test(module: Path) -> None:
    runner = real_runner(go_env(module))
    adapter = get_adapter("go")
    version = context(module, module.parent / "scratch-go")
    settings = {"benchtime": "200x"}
    specs = adapter.discover(version, runner, settings)
    assert [s.name for s in specs] == ["BenchmarkFib10", "BenchmarkSizes", "BenchmarkBroken"]
    assert all(s.unit == "ns/op" and not s.higher_is_better for s in specs)
    values = adapter.run_trial(trial(specs[0], version, 3, settings), runner)
    assert len(values) == 3 and all(v > 0 for v in values)
    sub = adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkSizes/n=8"), version, 2, settings), runner)
    assert len(sub) == 2 and all(v > 0 for v in sub)


def test_parent_missing_and_failing_benchmarks(module: Path) -> None:
    runner = real_runner(go_env(module))
    adapter = get_adapter("go")
    version = context(module, module.parent / "scratch-go")
    settings = {"benchtime": "10x"}
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkSizes"), version, 1, settings), runner)
    assert err.value.status == TrialStatus.INVALID and "2 benchmarks matched" in err.value.reason
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkFib1"), version, 1, settings), runner)
    assert err.value.status == TrialStatus.INVALID and "no benchmark matched" in err.value.reason
    with pytest.raises(TrialFailure) as err:
        adapter.run_trial(trial(BenchmarkSpec(name="BenchmarkBroken"), version, 1, settings), runner)
    assert err.value.status == TrialStatus.ERROR


def test_prebuilt_test_binary(module: Path) -> None:
    env = go_env(module)
    binary = module.parent / "fib.test"
    subprocess.run(
        ["go", "test", "-c", "-o", str(binary), "."], cwd=module, env={**os.environ, **env}, check=True
    )
    adapter = get_adapter("go")
    version = context(module, module.parent / "scratch-go")
    settings = {"binary": str(binary), "benchtime": "200x", "include": "Fib"}
    specs = adapter.discover(version, real_runner(), settings)
    assert [s.name for s in specs] == ["BenchmarkFib10"]
    values = adapter.run_trial(trial(specs[0], version, 2, settings), real_runner())
    assert len(values) == 2 and all(v > 0 for v in values)
