"""The ``jmh`` adapter end to end on a real JMH 1.37 project: a Maven project of the test's own
(``jmh-core`` and its annotation processor from Maven Central, built into an uber-jar with the
shade plugin as JMH's archetype does), two revisions in a git repository, the second with a
planted slowdown in one of its two benchmarks; ``run`` builds each revision in its worktree
with ``[suite] build`` and runs base and head in RMIT order, one forked JVM per trial; ``analyze``
must call the slowed benchmark a regression and not call the other one changed.

Maven downloads into a local repository under the tests' cache (``tests/integration/toolchains.py``)
once; the builds inside ``run`` are offline (``mvn -o``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from gate.adapters.registry import get_adapter
from gate.cli import main
from tests.conftest import require_tool
from tests.integration.adapter_helpers import context, real_runner, trial
from tests.integration.toolchains import cache_root, maven_repo, run_checked
from tests.integration.two_versions import make_repo

pytestmark = pytest.mark.slow

POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>bench</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-core</artifactId><version>1.37</version></dependency>
    <dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-generator-annprocess</artifactId>
      <version>1.37</version><scope>provided</scope></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-shade-plugin</artifactId><version>3.5.1</version>
        <executions><execution><phase>package</phase><goals><goal>shade</goal></goals>
          <configuration><finalName>benchmarks</finalName>
            <transformers><transformer implementation="org.apache.maven.plugins.shade.resource.ManifestResourceTransformer">
              <mainClass>org.openjdk.jmh.Main</mainClass></transformer></transformers>
          </configuration></execution></executions>
      </plugin>
    </plugins>
  </build>
</project>
"""


def work_java(slow_rounds: int) -> str:
    """``steady`` is the same in both revisions; ``slow`` repeats the same work ``slow_rounds`` times."""
    return f"""package bench;

import org.openjdk.jmh.annotations.*;

@State(Scope.Benchmark)
public class Work {{
    public int n = 2000;

    static long mix(int n, long seed) {{
        long s = seed;
        for (int i = 0; i < n; i++) {{ s = s * 6364136223846793005L + i; s ^= s >>> 29; }}
        return s;
    }}

    @Benchmark
    public long steady() {{ return mix(n, 1); }}

    @Benchmark
    public long slow() {{
        long s = 1;
        for (int r = 0; r < {slow_rounds}; r++) {{ s = mix(n, s); }}
        return s;
    }}
}}
"""


JAVA = "src/main/java/bench/Work.java"


def mvn_build(m2: Path, offline: bool) -> str:
    return f"mvn -B -q {'-o ' if offline else ''}-Dmaven.repo.local={m2} package"


CONFIG = """[suite]
adapter = "jmh"
timeout = 300
build = "{build}"
caches = ["{cache}"]  # the Maven repository the build reads offline; /tmp is private otherwise

[jmh]
mode = "avgt"
time_unit = "us"
warmup_iterations = 2
warmup_time = "100ms"
iteration_time = "100ms"

[full]
suite_runs = 2
iterations = 3
measurements = 3
"""


@pytest.fixture(scope="module")
def jmh_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("java")
    require_tool("mvn")
    root = tmp_path_factory.mktemp("jmh")
    repo = make_repo(root, [{"pom.xml": POM, JAVA: work_java(1)}, {JAVA: work_java(3)}])
    # The one online build: fills the local Maven repository (plugins, jmh-core) for the offline
    # builds that `run` makes in its worktrees; built in a copy so the repository stays clean.
    warm = root / "warm"
    shutil.copytree(repo, warm, ignore=shutil.ignore_patterns(".git"))
    run_checked(mvn_build(maven_repo(), offline=False).split(), cwd=warm)
    return repo


def test_planted_slowdown_is_a_regression_and_the_unchanged_benchmark_is_not(
    jmh_repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    config = tmp_path / "jmh.toml"
    config.write_text(CONFIG.format(build=mvn_build(maven_repo(), offline=True), cache=cache_root()))
    argv = ["run", "--config", str(config), "--repo", str(jmh_repo), "--base", "r1", "--head", "r2"]
    assert main([*argv, "--out", str(out), "--seed", "7", "--instance", "box"]) == 0
    trials = pd.read_csv(out / "trials.csv", keep_default_na=False)
    assert set(trials["status"]) == {"ok"}
    assert set(trials["benchmark"]) == {"bench.Work.slow", "bench.Work.steady"}
    assert set(trials["unit"]) == {"us/op"}
    # one JVM per trial: each (suite run, iteration) of a benchmark and version is one trial of
    # `measurements` values, the measurement iterations of that JVM
    per_trial = trials.groupby(["benchmark", "version", "suite_run", "iteration"]).size()
    assert len(per_trial) == 2 * 2 * 2 * 3 and set(per_trial) == {3}
    # RMIT: within a suite run the trials of base and head are interleaved, not base then head
    first_run = trials[(trials["suite_run"] == 1) & (trials["measurement"] == 1)].sort_values("position")
    versions = list(first_run["version"])
    assert versions != sorted(versions) and versions != sorted(versions, reverse=True)
    analysis = out / "analysis.json"
    assert (
        main(
            ["analyze", str(out / "trials.csv"), "--json", str(analysis), "--resamples", "500", "--seed", "1"]
        )
        == 0
    )
    verdicts = {b["benchmark"]: b["verdict"] for b in json.loads(analysis.read_text())["benchmarks"]}
    assert verdicts["bench.Work.slow"] == "regression", verdicts
    # the noise of a shared 2-core machine may leave the unchanged one unresolved, never changed
    assert verdicts["bench.Work.steady"] in {"unchanged", "inconclusive"}, verdicts


def test_a_classpath_instead_of_the_uber_jar_lists_and_runs_through_jmh_main(
    jmh_repo: Path, tmp_path: Path
) -> None:
    """``[jmh] classpath_file`` (as `mvn dependency:build-classpath` writes it) runs
    ``java -cp ... org.openjdk.jmh.Main``: here the classpath is the jar the module's build made,
    read as a plain classpath (its manifest's Main-Class unused)."""
    warm = jmh_repo.parent / "warm"  # built by the fixture
    (warm / "target" / "cp.txt").write_text("target/benchmarks.jar\n")
    adapter = get_adapter("jmh")
    version = context(warm, tmp_path / "scratch")
    settings = {"classpath_file": "target/cp.txt", "time_unit": "us", "iteration_time": "100ms"}
    specs = adapter.discover(version, real_runner(), settings)
    assert [s.name for s in specs] == ["bench.Work.slow", "bench.Work.steady"]
    values = adapter.run_trial(trial(specs[1], version, 2, settings), real_runner())
    assert len(values) == 2 and all(v > 0 for v in values)
