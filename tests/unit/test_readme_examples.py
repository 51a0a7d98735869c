"""The `.ordertrap.toml` shapes the README gives a newcomer are accepted by the gate as written,
and with their commented-out options switched on (a hint that names a wrong key would send the
first run to a "did you mean" error)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gate.config.project_config import parse_config
from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```toml\n(.*?)```", README, re.S)
# `# include = ["Parse"]  # ...` or `# [pytest-benchmark]`: an option line or a table header
# commented out, not a prose comment
COMMENTED_OPTION = re.compile(r"^# ?(\w+ = .*|\[[\w-]+\])$", re.M)


def test_the_readme_shows_the_common_shapes():
    assert len(EXAMPLES) >= 5
    assert {re.search(r'adapter = "([\w-]+)"', e)[1] for e in EXAMPLES} >= {
        "go",
        "pytest-benchmark",
        "command",
        "criterion",
        "jmh",
    }


def test_the_criterion_and_jmh_examples_are_complete_and_use_their_adapter_keys():
    from gate.adapters.jmh import JmhAdapter

    by_adapter = {re.search(r'adapter = "([\w-]+)"', e)[1]: e for e in EXAMPLES}
    jmh = parse_config(COMMENTED_OPTION.sub(r"\1", by_adapter["jmh"]).encode(), Path(".ordertrap.toml"))
    options = jmh.adapter_options()
    assert JmhAdapter()._options(options)["classpath_file"] == "target/cp.txt"
    assert "dependency:build-classpath" in jmh.suite.build
    criterion = parse_config(by_adapter["criterion"].encode(), Path(".ordertrap.toml"))
    assert criterion.full.measurements >= 10  # Criterion's minimum sample count


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: re.search(r'adapter = "([\w-]+)"', e)[1])
def test_a_readme_example_parses_as_written_and_with_its_commented_options(example: str) -> None:
    parse_config(example.encode(), Path(".ordertrap.toml"))
    parse_config(COMMENTED_OPTION.sub(r"\1", example).encode(), Path(".ordertrap.toml"))
