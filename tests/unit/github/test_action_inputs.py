"""The actions' inputs are parsed and checked in one place (gate.github.context.ActionInputs):
typed values, errors that name the input as the workflow writes it, and no other reader."""

from __future__ import annotations

import re

import pytest
import yaml

from gate.errors import ConfigError
from gate.github.context import ActionInputs, from_env
from tests.conftest import REPO_ROOT


def test_inputs_are_typed_and_unset_or_empty_means_the_default():
    inputs = ActionInputs.from_env(
        {
            "INPUT_THRESHOLD_PCT": " 2.5 ",
            "INPUT_CONFIDENCE": "0.95",
            "INPUT_STATISTIC": "Mean",
            "INPUT_BOOTSTRAP": " Two-Level ",
            "INPUT_ALLOW_FORK_PRS": "TRUE",
            "INPUT_FORK_LABEL": "run-it",
            "INPUT_COMMENT": "",
        }
    )
    assert (inputs.threshold_pct, inputs.confidence, inputs.statistic) == (2.5, 0.95, "mean")
    assert inputs.bootstrap == "two-level" and ActionInputs().bootstrap is None  # None: analyze's flat
    assert (inputs.allow_fork_prs, inputs.fork_label, inputs.comment) == (True, "run-it", "on-change")
    assert ActionInputs.from_env({}) == ActionInputs()
    assert ActionInputs.from_env({"INPUT_STATISTIC": " P05 "}).statistic == "p5"  # any pNN, canonical
    assert ActionInputs().threshold_pct is None and ActionInputs().allow_fork_prs is False


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("threshold_pct", "abc", "not a number"),
        ("threshold_pct", "3%", "not a number"),
        ("threshold_pct", "0", "not a percentage above 0"),
        ("threshold_pct", "nan", "not a percentage above 0"),
        ("threshold_pct", "1e9", "below 1000"),
        ("confidence", "99", "outside [0.5, 1)"),
        ("confidence", "1", "outside [0.5, 1)"),
        ("confidence", "high", "not a number"),
        ("statistic", "mode", "not a statistic the gate knows"),
        ("statistic", "p100", "not a statistic the gate knows"),
        ("bootstrap", "hierarchical", "not one of flat, two-level, auto"),
        ("fail_on", "sometimes", "not one of regression, inconclusive, never"),
        ("comment", "yes", "not one of always, on-change, never"),
        ("allow_fork_prs", "yes", "not true or false"),
        ("allow_fork_prs", "1", "not true or false"),
    ],
)
def test_each_bad_input_is_an_error_naming_the_input_and_the_fix(name, value, says):
    with pytest.raises(ConfigError) as info:
        ActionInputs.from_env({f"INPUT_{name.upper()}": value})
    assert info.value.message.startswith(f"{name} is {value!r}, which is") and says in info.value.message
    assert f"set the action input `{name}`" in info.value.fix
    assert "--threshold-pct" not in str(info.value) and "--confidence" not in str(info.value)
    # the settings read the inputs through the same check
    with pytest.raises(ConfigError, match=re.escape(name)):
        from_env({f"INPUT_{name.upper()}": value})


def test_every_bad_input_is_named_at_once_and_fallback_keeps_the_good_ones():
    env = {
        "INPUT_THRESHOLD_PCT": "x",
        "INPUT_CONFIDENCE": "2",
        "INPUT_FAIL_ON": "never",
        "INPUT_BASE": "main",
    }
    with pytest.raises(ConfigError) as info:
        ActionInputs.from_env(env)
    assert "threshold_pct is 'x'" in info.value.message and "confidence is '2'" in info.value.message
    assert "`threshold_pct`" in info.value.fix and "`confidence`" in info.value.fix
    inputs = ActionInputs.from_env(env, fallback=True)
    assert (inputs.threshold_pct, inputs.confidence, inputs.fail_on, inputs.base) == (
        None,
        None,
        "never",
        "main",
    )


def test_publish_flags_go_through_the_same_checks():
    settings = from_env({"INPUT_FAIL_ON": "never"})
    assert settings.with_overrides(fail_on="inconclusive", comment=None).inputs.fail_on == "inconclusive"
    assert settings.with_overrides(comment=None) is settings
    with pytest.raises(ConfigError, match="comment is 'sometimes'"):
        settings.with_overrides(comment="sometimes")


def _mapped_inputs(action: str) -> set[str]:
    """Input names an action passes to a process as ``INPUT_<NAME>`` variables."""
    text = (REPO_ROOT / action).read_text(encoding="utf-8")
    return {m.lower() for m in re.findall(r"\bINPUT_([A-Z0-9_]+): \$\{\{ inputs\.", text)}


@pytest.mark.parametrize("action", ["action.yml", "guard/action.yml"])
def test_every_input_the_python_side_reads_has_a_typed_field(action):
    """The Docker action and the guard hand every input to Python: each has a field (the token
    is kept apart, as a secret)."""
    declared = set(yaml.safe_load((REPO_ROOT / action).read_text(encoding="utf-8"))["inputs"])
    passed = _mapped_inputs(action)
    fields = set(ActionInputs.__dataclass_fields__) | {"github_token"}
    assert passed - fields == set()
    if action == "action.yml":
        assert declared == passed == fields - {"allow_fork_prs", "fork_label"}


def test_no_other_module_reads_an_input_variable():
    """``INPUT_*`` values are read only by gate/github/context.py (removing the token from the
    environment, in the entrypoint, is not a read)."""
    reading = re.compile(r"""(?:\.get\(|\[|getenv\()\s*f?["']INPUT_""")
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in sorted((REPO_ROOT / "gate").rglob("*.py"))
        if path.name != "context.py" and reading.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_manual_lists_every_input_of_the_docker_action():
    declared = set(yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
    manual = (REPO_ROOT / "docs" / "github-actions.md").read_text(encoding="utf-8")
    table = manual.split("| input | default | meaning |", 1)[1].split("\n\n", 1)[0]
    rows = [row for row in table.splitlines() if row.startswith("|")]
    listed = {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}
    assert {"trials", "threshold_pct", "report_dir"} <= listed  # the table is found
    assert declared - listed == set()
