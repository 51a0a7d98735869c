"""The demo project's planted effects are real: head vs base, and the intentional carry-over.

The demo (``make demo``) is only convincing if the gate finds what is really there, so these
tests measure the demo benchmarks directly, as real processes, without the gate: base and head
(base + ``examples/demo-project.head.patch``) interleaved in a random order, repeated, and
compared as medians of ratios of back-to-back runs. Only relative comparisons, never absolute times.

Two choices make this hold on a busy shared machine (measured with load 6 on 2 cores, where
medians of five wall-clock runs swung by ±25 %): the benchmarks report CPU time
(``TEXTKIT_BENCH_CLOCK=cpu``; the planted effects are CPU work, so they show there just as in
wall time), and the runs being compared are paired back to back, because this VM also drifts
between slower and faster periods (CPU time by up to 2×) that a pair shares: minima or medians of
unpaired runs failed in 3 of 7 runs of this file, the median of paired ratios in 0 of 7 (two of
them with a second copy of the file running at the same time).
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-project"
PATCH = ROOT / "examples" / "demo-project.head.patch"
BENCHMARKS = ("tokenize", "wordfreq", "ngrams", "dedupe", "slugify", "vocab")
SLOWER = "ngrams"  # head: ~20 % slower
FASTER = "wordfreq"  # head: ~15 % faster
STATE_LEAVER = "vocab"  # leaves a single-use warm-start file for the next process
WARM_START = "warm-start.pickle"
REPS = 12
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass
class Demo:
    base: Path
    head: Path
    cache: Path

    def run(self, version: Path, benchmark: str, *, keep_state: bool = False) -> float:
        """One benchmark process; returns the seconds it printed. Unless ``keep_state``, any
        warm-start file is removed first, so the measurement is of a cold process."""
        if not keep_state:
            (self.cache / WARM_START).unlink(missing_ok=True)
        proc = subprocess.run(
            [sys.executable, "bench.py", benchmark],
            cwd=version,
            env={**os.environ, "TEXTKIT_CACHE_DIR": str(self.cache), "TEXTKIT_BENCH_CLOCK": "cpu"},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        value = float(NUMBER.findall(proc.stdout)[-1])
        assert value > 0, proc.stdout
        return value


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    root = tmp_path_factory.mktemp("demo-project")
    base, head, cache = root / "base", root / "head", root / "cache"
    shutil.copytree(DEMO, base, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(base, head)
    # A repository of its own, so `git apply` cannot resolve paths against an enclosing one.
    subprocess.run(["git", "init", "-q", str(head)], check=True)
    subprocess.run(["git", "apply", "--whitespace=nowarn", str(PATCH)], cwd=head, check=True)
    cache.mkdir()
    yield Demo(base, head, cache)


def test_patch_changes_exactly_the_two_planted_modules(demo: Demo) -> None:
    changed = sorted(
        str(p.relative_to(demo.base))
        for p in demo.base.rglob("*.py")
        if p.read_bytes() != (demo.head / p.relative_to(demo.base)).read_bytes()
    )
    assert changed == ["textkit/ngrams.py", "textkit/wordfreq.py"]


def test_head_computes_the_same_results(demo: Demo) -> None:
    """The planted changes are performance changes, not behaviour changes."""
    script = (
        "import bench, textkit;"
        "lines = bench.corpus();"
        "print(repr((textkit.top_words(lines), sorted(textkit.bigram_counts(lines).items())[:200],"
        " len(textkit.bigram_counts(lines)))))"
    )
    env = {**os.environ, "TEXTKIT_CACHE_DIR": str(demo.cache)}
    outputs = [
        subprocess.run(
            [sys.executable, "-c", script], cwd=d, env=env, capture_output=True, text=True, check=True
        ).stdout
        for d in (demo.base, demo.head)
    ]
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 1000


@dataclass
class HeadVsBase:
    median: dict[str, float]  # per benchmark, the median head/base ratio
    spread: dict[str, float]  # per benchmark, the log-ratio SD of its pairs

    def noise(self, name: str) -> float:
        """The benchmark's own spread, or the run's typical spread (median over benchmarks) when
        that is larger: 12 pairs estimate an SD loosely, and every benchmark shares the machine's
        noise (a CI run had tokenize at 0.16 while the others measured 0.21-0.41, and failed)."""
        return max(self.spread[name], statistics.median(self.spread.values()))


@pytest.fixture(scope="module")
def head_vs_base(demo: Demo) -> HeadVsBase:
    """Per benchmark, the median over REPS of head/base time ratios measured back to back.

    Paired: this shared VM runs in slower and faster periods (even CPU time swings about 2×), and
    two adjacent runs share the period, so their ratio cancels it where unpaired minima or medians
    over all runs did not (they failed 2 of 5 full test runs)."""
    rng = random.Random()
    ratios: dict[str, list[float]] = {name: [] for name in BENCHMARKS}
    for _ in range(REPS):
        for name in rng.sample(BENCHMARKS, len(BENCHMARKS)):
            first, second = rng.sample([demo.base, demo.head], 2)
            t = {first: demo.run(first, name), second: demo.run(second, name)}
            ratios[name].append(t[demo.head] / t[demo.base])
    return HeadVsBase(
        median={name: statistics.median(r) for name, r in ratios.items()},
        spread={name: log_ratio_sd(r) for name, r in ratios.items()},
    )


def expect(holds: bool, spread: float, detail: object) -> None:
    """Assert ``holds``; but when it does not and the pairs were too noisy to resolve the planted
    effect (``spread`` above NOISY_LOG_RATIO_SD), skip and report the noise instead of failing."""
    if holds:
        return
    if spread > NOISY_LOG_RATIO_SD:
        pytest.skip(f"machine too noisy to resolve the effect: log-ratio SD {spread:.2f}; {detail}")
    pytest.fail(f"log-ratio SD {spread:.2f}: {detail}")


def test_head_makes_the_planted_benchmark_slower(head_vs_base: HeadVsBase) -> None:
    expect(head_vs_base.median[SLOWER] > 1.08, head_vs_base.noise(SLOWER), head_vs_base)


def test_head_makes_the_planted_benchmark_faster(head_vs_base: HeadVsBase) -> None:
    expect(head_vs_base.median[FASTER] < 0.94, head_vs_base.noise(FASTER), head_vs_base)


def test_head_leaves_the_other_benchmarks_alone(head_vs_base: HeadVsBase) -> None:
    for name in sorted(set(BENCHMARKS) - {SLOWER, FASTER}):
        expect(0.8 < head_vs_base.median[name] < 1.2, head_vs_base.noise(name), (name, head_vs_base))


def test_warm_start_file_is_single_use(demo: Demo) -> None:
    """vocab leaves the file; the next process, whichever it is, consumes it."""
    warm = demo.cache / WARM_START
    demo.run(demo.base, "slugify")
    assert not warm.exists()
    demo.run(demo.head, STATE_LEAVER)
    assert warm.exists()
    demo.run(demo.base, "dedupe", keep_state=True)
    assert not warm.exists()


# Above this spread of the paired log-ratios (robust SD) a miss says more about the machine than
# about the demo: 12-24 pairs then put the planted effects only 1-3 standard errors from the bounds.
# Seen on this VM when the host was busy (ratios 0.37-1.43 with CPU time, SD 0.46; also 0.32-0.38
# at load 0.6); quiet runs measured 0.04-0.15.
NOISY_LOG_RATIO_SD = 0.25


def log_ratio_sd(ratios: list[float]) -> float:
    logs = [math.log(r) for r in ratios]
    centre = statistics.median(logs)
    return 1.4826 * statistics.median(abs(x - centre) for x in logs)


def test_carry_over_speeds_up_the_next_benchmark(demo: Demo) -> None:
    """tokenize right after vocab vs right after slugify, in 24 back-to-back pairs: the planted
    carry-over is clearly there (four quiet runs of this test: median ratios 0.76-0.79, log-ratio
    SD 0.04-0.15). The bound leaves room for load on the shared cores (an audit under load measured
    0.902 with 12 pairs); a miss on pairs too noisy to resolve the effect skips (see expect)."""
    rng = random.Random()
    follower = "tokenize"
    ratios: list[float] = []
    for _ in range(2 * REPS):
        t: dict[str, float] = {}
        for predecessor in rng.sample([STATE_LEAVER, "slugify"], 2):  # a pair, back to back
            demo.run(demo.base, predecessor)
            t[predecessor] = demo.run(demo.base, follower, keep_state=True)
        ratios.append(t[STATE_LEAVER] / t["slugify"])
    expect(statistics.median(ratios) < 0.95, log_ratio_sd(ratios), ratios)
