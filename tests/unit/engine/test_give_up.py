"""The give-up rule (gate/engine/give_up.py): per benchmark × version, the first
``give_up_after`` trials all failed, or the first one timed out."""

from __future__ import annotations

from gate.engine.give_up import GiveUp
from gate.engine.schedule import Trial
from gate.files.run_meta import GiveUpRecord


def trial(n: int, benchmark: str = "a", version: str = "HEAD") -> Trial:
    return Trial(n, "box", 1, "random", n, benchmark, version, n, 1, "full")


def feed(rule: GiveUp, statuses: list[tuple[str, str]], benchmark: str = "a") -> list[GiveUpRecord]:
    """``statuses``: (version, status) in the order the trials ran; the records given."""
    trials = [trial(i, benchmark, v) for i, (v, _) in enumerate(statuses, start=1)]
    out = []
    for i, (t, (_, status)) in enumerate(zip(trials, statuses, strict=True)):
        r = rule.observe(t, status, f"{status} reason", later=trials[i + 1 :])
        if r is not None:
            out.append(r)
    return out


def test_two_failures_in_a_version_give_up_that_version_only() -> None:
    rule = GiveUp(2)
    got = feed(
        rule, [("HEAD", "error"), ("main", "ok"), ("HEAD", "invalid"), ("main", "ok"), ("HEAD", "error")]
    )
    assert [(r.version, r.failed, r.status, r.trial, r.not_run) for r in got] == [
        ("HEAD", 2, "invalid", 3, 1)
    ]
    assert rule.skips(trial(9, "a", "HEAD")) and not rule.skips(trial(9, "a", "main"))
    assert not rule.skips(trial(9, "b", "HEAD"))


def test_a_first_timeout_gives_up_at_once_but_a_later_one_does_not() -> None:
    assert [r.failed for r in feed(GiveUp(2), [("HEAD", "timeout"), ("HEAD", "timeout")])] == [1]
    # an error first: the timeout is the second failure, given up by the count
    assert [
        r.status for r in feed(GiveUp(3), [("HEAD", "error"), ("HEAD", "timeout"), ("HEAD", "error")])
    ] == ["error"]


def test_one_ok_trial_settles_the_benchmark_for_the_rest_of_the_run() -> None:
    assert feed(GiveUp(2), [("HEAD", "error"), ("HEAD", "ok"), ("HEAD", "error"), ("HEAD", "error")]) == []
    assert feed(GiveUp(2), [("HEAD", "ok"), ("HEAD", "timeout")]) == []


def test_skipped_trials_neither_count_nor_settle() -> None:
    got = feed(GiveUp(2), [("HEAD", "skipped"), ("HEAD", "error"), ("HEAD", "skipped"), ("HEAD", "error")])
    assert [r.trial for r in got] == [4]


def test_zero_never_gives_up() -> None:
    assert feed(GiveUp(0), [("HEAD", "timeout")] + [("HEAD", "error")] * 5) == []


def test_a_trial_is_counted_once_and_each_record_reaches_on_record() -> None:
    seen: list[GiveUpRecord] = []
    rule = GiveUp(2, on_record=seen.append)
    first = trial(1)
    rule.observe(first, "error", "r")
    rule.observe(first, "error", "r")  # a resumed run replays the finished trials
    assert seen == []
    rule.observe(trial(2), "error", "r")
    assert [r.trial for r in seen] == [2] and rule.records == seen
    # a resumed run starts from the records in meta.json
    assert GiveUp(2, records=list(seen)).skips(trial(7))
