"""A benchmark whose defining file the change edits is named (same name, different
workload): real git commits, the adapters' own hints."""

from __future__ import annotations

from pathlib import Path

from gate.adapters.criterion import CriterionAdapter
from gate.adapters.gotest import GoTestAdapter
from gate.adapters.pytest_benchmark import PytestBenchmarkAdapter
from gate.engine.source_changes import changed_benchmarks, source_changed_warning
from tests.integration.test_run_cli import git

GO_BASE = (
    "package p\n\nfunc BenchmarkParse(b *testing.B) { parse(small) }\n\nfunc BenchmarkJoin(b *testing.B) {}\n"
)
GO_HEAD = (
    "package p\n\nfunc BenchmarkParse(b *testing.B) { parse(large) }\n\nfunc BenchmarkJoin(b *testing.B) {}\n"
)


def commits(tmp_path: Path, base: dict[str, str], head: dict[str, str]) -> tuple[Path, str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    shas = []
    for files in (base, head):
        for name, text in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "c")
        shas.append(git(repo, "rev-parse", "HEAD"))
    return repo, shas[0], shas[1]


def test_a_go_benchmark_in_an_edited_test_file_is_named(tmp_path: Path) -> None:
    repo, base, head = commits(
        tmp_path,
        {"parse_test.go": GO_BASE, "join_test.go": "package p\n", "lib.go": "package p\n"},
        {"parse_test.go": GO_HEAD, "lib.go": "package p\n// faster\n"},
    )
    names = ["BenchmarkParse/small", "BenchmarkSplit"]
    found = changed_benchmarks(GoTestAdapter(), repo, base, head, names)
    assert found == {"BenchmarkParse/small": ["parse_test.go"]}  # lib.go is the code under test
    w = source_changed_warning(found, "main", "pr")
    assert w is not None and w["code"] == "benchmark_source_changed"
    assert "BenchmarkParse/small (parse_test.go)" in w["message"] and "new name" in w["action"]
    assert source_changed_warning({}, "main", "pr") is None


def test_criterion_and_pytest_benchmark_hints(tmp_path: Path) -> None:
    repo, base, head = commits(
        tmp_path,
        {
            "benches/b.rs": 'c.bench_function("fold", |b| b.iter(|| f(10)));\n',
            "bench/test_x.py": "def test_a(): pass\n",
        },
        {
            "benches/b.rs": 'c.bench_function("fold", |b| b.iter(|| f(1000)));\n',
            "bench/test_x.py": "def test_a(): 1\n",
        },
    )
    assert changed_benchmarks(CriterionAdapter(), repo, base, head, ["fold", "zip/8"]) == {
        "fold": ["benches/b.rs"]
    }
    assert changed_benchmarks(
        PytestBenchmarkAdapter(), repo, base, head, ["bench/test_x.py::test_a", "t.py::b"]
    ) == {"bench/test_x.py::test_a": ["bench/test_x.py"]}
