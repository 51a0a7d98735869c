"""A failed benchmark that the run gave up on (meta.json ``given_up``) says so in its reason
(gate/analysis/entries.py ``given_up_reasons``)."""

from __future__ import annotations

from gate.analysis.compare import Comparison, VersionResult
from gate.analysis.entries import given_up_reasons
from gate.files.run_meta import GiveUpRecord, RunMeta
from gate.model import Verdict

GENERIC = "2 trial(s) failed (head: 2: error: boom); a failing trial is a failure"


def comparison(verdict: Verdict, base_failed: int, head_failed: int) -> Comparison:
    return Comparison(
        "parse", verdict, GENERIC, None, None,
        VersionResult(1.0, None, 6, base_failed), VersionResult(None, None, 0, head_failed), False,
    )  # fmt: skip


def given_up(version: str) -> RunMeta:
    return RunMeta(given_up=(GiveUpRecord("parse", version, 2, "error", "boom ", 5, "t", 4),))


def test_the_give_up_replaces_the_generic_reason_when_it_holds_every_failure() -> None:
    (c,) = given_up_reasons([comparison(Verdict.FAILED, 0, 2)], [given_up("HEAD")], "main", "HEAD")
    assert c.reason == (
        "given up in HEAD after 2 failed trial(s), 4 trial(s) not run (fix the benchmark, or set "
        "[suite] give_up_after = 0 to run them all): error: boom"
    )


def test_failures_in_a_version_not_given_up_keep_the_generic_reason_after_it() -> None:
    (c,) = given_up_reasons([comparison(Verdict.FAILED, 1, 2)], [given_up("HEAD")], "main", "HEAD")
    assert c.reason.startswith("given up in HEAD after 2") and c.reason.endswith(GENERIC)


def test_other_versions_and_other_verdicts_are_left_alone() -> None:
    c = comparison(Verdict.FAILED, 0, 2)
    assert given_up_reasons([c], [given_up("v2")], "main", "HEAD") == [c]
    ok = comparison(Verdict.UNCHANGED, 0, 0)
    assert given_up_reasons([ok], [given_up("HEAD")], "main", "HEAD") == [ok]
