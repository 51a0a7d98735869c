"""Helpers for end-to-end tests on real git repositories with several revisions: build the
repository, run ``run`` + ``analyze`` on it, and a small Go module whose sub-benchmarks change
between revisions (tests/integration/test_missing_benchmarks.py, test_go_patterns.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from gate.cli import main
from tests.conftest import require_tool
from tests.integration.test_adapter_go import go_env

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
GIT_ENV |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def make_repo(root: Path, revisions: list[dict[str, str | None]]) -> Path:
    """One commit per item of ``revisions`` (file path -> text; None deletes), tagged r1, r2, ..."""
    require_tool("git")
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for i, files in enumerate(revisions, start=1):
        for name, text in files.items():
            path = repo / name
            if text is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"r{i}")
        git(repo, "tag", f"r{i}")
    return repo


def run_and_analyze(
    repo: Path, config: str, out: Path, base: str, head: str
) -> tuple[pd.DataFrame, dict, dict]:
    """``run`` then ``analyze``; the config lives outside the repository (the operator's own file)."""
    config_path = out.parent / f"{out.name}.toml"
    config_path.write_text(config)
    argv = ["run", "--config", str(config_path), "--repo", str(repo), "--base", base, "--head", head]
    assert main([*argv, "--out", str(out), "--seed", "7", "--instance", "box"]) == 0
    analysis_path = out / "analysis.json"
    argv = ["analyze", str(out / "trials.csv"), "--json", str(analysis_path), "--threshold-pct", "500"]
    assert main([*argv, "--resamples", "500", "--seed", "1"]) == 0
    trials = pd.read_csv(out / "trials.csv", keep_default_na=False)
    meta = json.loads((out / "meta.json").read_text())
    return trials, meta, json.loads(analysis_path.read_text())


def statuses(trials: pd.DataFrame) -> dict[tuple[str, str], set[str]]:
    return {(str(b), str(v)): set(g["status"]) for (b, v), g in trials.groupby(["benchmark", "version"])}


def one_version_only(analysis: dict) -> str:
    return " | ".join(w["message"] for w in analysis["warnings"] if w["code"] == "one_version_only")


GO_MOD = "module example.com/sum\n\ngo 1.19\n"
SUM = "package sum\n\nfunc Sum(n int) (s int) {\n\tfor i := 0; i < n; i++ {\n\t\ts += i\n\t}\n\treturn s\n}\n"


def go_test_file(sizes: list[int], top: list[str]) -> str:
    """BenchmarkSum with one sub-benchmark per size (named "4B", as cespare/xxhash names them)
    plus plain top-level benchmarks. BenchmarkSum appends a line to $SUM_LISTING_LOG each time
    it starts, so a test can count how often the benchmarks ran."""
    funcs = "".join(
        f"\nfunc {name}(b *testing.B) {{\n\tfor i := 0; i < b.N; i++ {{\n\t\tSum(10)\n\t}}\n}}\n"
        for name in top
    )
    return f"""package sum

import (
	"fmt"
	"os"
	"testing"
)

func BenchmarkSum(b *testing.B) {{
	if path := os.Getenv("SUM_LISTING_LOG"); path != "" {{
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, "started")
		f.Close()
	}}
	for _, n := range []int{{{", ".join(map(str, sizes))}}} {{
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {{
			for i := 0; i < b.N; i++ {{
				Sum(n)
			}}
		}})
	}}
}}
{funcs}"""


def make_go_repo(root: Path) -> Path:
    """r1: Sum/{4B,64B}, BenchmarkOld. r2 adds Sum/16B and BenchmarkNew. r3 removes BenchmarkOld."""
    require_tool("go")
    return make_repo(
        root,
        [
            {"go.mod": GO_MOD, "sum.go": SUM, "sum_test.go": go_test_file([4, 64], ["BenchmarkOld"])},
            {"sum_test.go": go_test_file([4, 16, 64], ["BenchmarkOld", "BenchmarkNew"])},
            {"sum_test.go": go_test_file([4, 16, 64], ["BenchmarkNew"])},
        ],
    )


def use_go_env(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    """The offline Go settings of the adapter tests, for the whole process (``run`` builds its own runner)."""
    for key, value in go_env(root).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


# The Go build cache of go_env, bound into the sandbox (where /tmp is private to each version),
# so that the standard library is compiled once
GO_CONFIG = """[suite]
adapter = "go"
timeout = 120
caches = ["GOCACHE_DIR"]
{benchmarks}
[go]
benchtime = "2000x"

[full]
suite_runs = 2
iterations = 2
measurements = 2
""".replace("GOCACHE_DIR", go_env(Path("/"))["GOCACHE"])
