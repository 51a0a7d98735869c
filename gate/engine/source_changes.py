"""Benchmarks whose own source the change touches: "same name, different workload".

A benchmark is compared by name; when the change edits the benchmark itself (its inputs, its
loop), base and head measure different workloads under one name, and a "regression" may be the
new input's cost. Where the adapter can tell from a name which file defines the benchmark
(:class:`gate.adapters.base.SourceHint`), the files ``git diff --name-only base head`` lists are
checked, and the run warns with the benchmarks and files. Only committed content is read (git's
objects, at most :data:`MAX_FILES` files of at most 1 MiB each).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gate.adapters.base import Adapter, SourceHint
from gate.host import worktree
from gate.model import warning
from gate.warning_codes import WarningCode

MAX_FILES = 200  # changed files read at most: a huge change is said without reading every file


def changed_benchmarks(
    adapter: Adapter, repo: Path, base_sha: str, head_sha: str, names: Iterable[str]
) -> dict[str, list[str]]:
    """Benchmark -> the changed files that define it (by the adapter's hint); only names with some."""
    hint_of = getattr(adapter, "source_hint", None)
    if hint_of is None:
        return {}
    changed = worktree.changed_files(repo, base_sha, head_sha)
    if not changed:
        return {}
    texts: dict[str, str] = {}

    def text(path: str) -> str:
        if path not in texts:
            texts[path] = (
                worktree.blob_text(repo, base_sha, path) + "\n" + worktree.blob_text(repo, head_sha, path)
                if len(texts) < MAX_FILES
                else ""
            )
        return texts[path]

    found: dict[str, list[str]] = {}
    for name in sorted(names):
        hint: SourceHint | None = hint_of(name)
        if hint is None:
            continue
        for path in changed:
            if hint.path is not None and path != hint.path:
                continue
            if hint.suffix and not path.endswith(hint.suffix):
                continue
            if hint.needles and not any(n in text(path) for n in hint.needles):
                continue
            found.setdefault(name, []).append(path)
    return found


def source_changed_warning(found: dict[str, list[str]], base: str, head: str) -> dict[str, str] | None:
    if not found:
        return None
    shown = "; ".join(f"{name} ({', '.join(paths[:2])})" for name, paths in list(found.items())[:8])
    more = f" and {len(found) - 8} more" if len(found) > 8 else ""
    return warning(
        WarningCode.BENCHMARK_SOURCE_CHANGED,
        f"{len(found)} benchmark(s) are defined in files this change edits between {base} and {head}, "
        f"so base and head may measure different workloads under one name: {shown}{more}",
        "if the change alters what a benchmark does (its input, its loop), read its verdict as the new "
        "workload's cost, or give the changed benchmark a new name so both are kept",
    )
