"""The run action's event → (base, head, config-from, config revision, calibration) rule
(gate.action.revisions.resolve_revisions) as a table: each row an event, the inputs, what the
commits hold, and the resulting revisions. The git questions are answered from the row (the rule is pure); the answers of
a real clone are checked in tests/integration/test_run_action.py."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from gate.action.revisions import CALIBRATION_FILE, NO_COMMIT, Event, Revisions, resolve_revisions
from gate.errors import ConfigError

CAL = CALIBRATION_FILE


@dataclass
class Commits:
    """Git facts of a made-up clone: merge-bases, parents and which commits hold the calibration."""

    merge_bases: dict[tuple[str, str], str] = field(default_factory=dict)
    parents: dict[str, str] = field(default_factory=dict)
    calibrated: set[str] = field(default_factory=set)
    asked: list[str] = field(default_factory=list)

    def merge_base(self, first: str, second: str) -> str | None:
        self.asked.append(f"merge-base {first} {second}")
        return self.merge_bases.get((first, second))

    def parent(self, revision: str) -> str:
        self.asked.append(f"parent {revision}")
        if revision not in self.parents:
            raise ConfigError(f"{revision} has no parent", "fetch-depth: 0")
        return self.parents[revision]

    def has_file(self, revision: str, path: str) -> bool:
        assert path == CAL
        return revision in self.calibrated


PR = Event("pull_request", sha="merge", pr_base_sha="tip", pr_head_sha="pr")
CLONE = Commits(merge_bases={("tip", "pr"): "fork-point", ("tip", "other"): "mb2"}, parents={"sha": "sha~1"})

CASES = [
    # (id, event, inputs (base, head, calibration), calibrated commits, decision)
    # a pull request: the merge-base is measured, the base branch's tip supplies the settings
    ("pr", PR, ("", "", ""), set(), Revisions("fork-point", "pr", "base", "tip", None)),
    ("pr-target", Event("pull_request_target", "x", "tip", "pr"), ("", "", ""), set(),
     Revisions("fork-point", "pr", "base", "tip", None)),
    # the head input (the guard's reviewed commit) wins over the event's head
    ("pr-head-input", PR, ("", "other", ""), set(), Revisions("mb2", "other", "base", "tip", None)),
    # a base input: no merge-base, and the settings come from that base itself
    ("pr-base-input", PR, ("main", "", ""), set(), Revisions("main", "pr", "base", None, None)),
    # the calibration follows the commits: the settings' revision commits one …
    ("pr-cal-tip", PR, ("", "", ""), {"tip"}, Revisions("fork-point", "pr", "base", "tip", CAL)),
    # … not the measured fork point (the tip's settings judge the PR)
    ("pr-cal-fork-point-only", PR, ("", "", ""), {"fork-point"}, Revisions("fork-point", "pr", "base", "tip", None)),
    # … or only head adds one: passed, so that `run` reports it (and runs the full configuration)
    ("pr-cal-head-adds", PR, ("", "", ""), {"pr"}, Revisions("fork-point", "pr", "base", "tip", CAL)),
    ("pr-cal-none", PR, ("", "", "none"), {"tip", "pr"}, Revisions("fork-point", "pr", "base", "tip", None)),
    ("pr-cal-input", PR, ("", "", "cal/x.json"), set(), Revisions("fork-point", "pr", "base", "tip", "cal/x.json")),
    # merged or pushed code is measured with its own files: the nightly run does not lag behind
    ("push", Event("push", "sha", push_before="before"), ("", "", ""), {"before"},
     Revisions("before", "sha", "head", None, None)),
    ("push-new-branch", Event("push", "sha", push_before=NO_COMMIT), ("", "", ""), set(),
     Revisions("sha~1", "sha", "head", None, None)),
    ("schedule", Event("schedule", "sha"), ("", "", ""), {"sha"}, Revisions("sha~1", "sha", "head", None, CAL)),
    ("dispatch-inputs", Event("workflow_dispatch", "sha"), ("v1", "v2", ""), {"v1"},
     Revisions("v1", "v2", "head", None, None)),
    # any other event (merge_group, a workflow_run that passes a head) uses base's files
    ("merge-group", Event("merge_group", "sha"), ("", "", ""), {"sha~1"}, Revisions("sha~1", "sha", "base", None, CAL)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("event", "inputs", "calibrated", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_decision_table(event, inputs, calibrated, expected):
    base, head, calibration = inputs
    commits = Commits(CLONE.merge_bases, CLONE.parents, calibrated)
    assert resolve_revisions(event, base=base, head=head, calibration=calibration, git=commits) == expected


def test_a_base_input_asks_git_nothing_about_the_base():
    commits = Commits()
    resolve_revisions(PR, base="main", head="", calibration="none", git=commits)
    assert commits.asked == []


def test_a_pull_request_without_a_merge_base_names_the_fix():
    with pytest.raises(ConfigError) as info:
        resolve_revisions(PR, base="", head="", calibration="", git=Commits())
    assert info.value.message == "no merge-base of tip and pr"
    assert info.value.fix == "use actions/checkout with fetch-depth: 0"


def test_the_event_payload_gives_the_shas_and_ignores_what_is_not_text():
    payload = {"pull_request": {"base": {"sha": "b"}, "head": {"sha": "h"}}, "before": "p"}
    assert Event.from_payload("pull_request", "s", payload) == Event("pull_request", "s", "b", "h", "p")
    assert Event.from_payload("push", "s", {"pull_request": None, "before": 3}) == Event("push", "s")
    assert Event.from_payload("x", "s", {"pull_request": {"head": "h"}}) == Event("x", "s")
