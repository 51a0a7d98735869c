"""eval/peers.py's go-test-output writer and benchstat reader against the real benchstat, which the
script installs from the Go module proxy into its cache (once; later runs reuse it)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT, require_tool


@pytest.fixture(scope="module")
def peers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("peers_real", REPO_ROOT / "eval" / "peers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["peers_real"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_real_benchstat_reads_the_written_output_and_its_verdicts_are_parsed(
    peers: ModuleType, tmp_path: Path
) -> None:
    require_tool("go")
    benchstat = peers.install_benchstat(peers.cache_dir(None))
    base = [100.0 + i for i in range(10)]
    rows_base = [("BenchmarkSame/4B", v) for v in base] + [("BenchmarkSlower", v) for v in base]
    rows_base += [("BenchmarkFaster", v) for v in base] + [("BenchmarkFew", v) for v in base[:3]]
    rows_head = [("BenchmarkSame/4B", v) for v in base] + [("BenchmarkSlower", v * 1.10) for v in base]
    rows_head += [("BenchmarkFaster", v * 0.90) for v in base] + [("BenchmarkFew", v * 1.5) for v in base[:3]]
    said = peers.run_benchstat(
        benchstat, peers.go_test_output(rows_base), peers.go_test_output(rows_head), tmp_path, procs=2
    )
    assert said == {
        "BenchmarkSame/4B": "unchanged",
        "BenchmarkSlower": "regression",
        "BenchmarkFaster": "improvement",
        "BenchmarkFew": "inconclusive",  # benchstat: "need >= 4 samples to detect a difference"
    }
