"""Follow-up rounds: after the planned suite runs, more RMIT suite runs for the benchmarks that
are ``inconclusive`` for lack of data, within a wall-time budget (docs/running.md, "Follow-up rounds").

This module is PURE: it decides which benchmarks get a round, how many extra suite runs each, how
that fits the time left, and why the rounds stop. The budget and the error rule of the looks are
:mod:`gate.rounds.config`; the loop that runs the rounds is :class:`gate.adaptive.loop.Rounds`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gate.files.run_meta import FollowUpRecord, NotFollowedRecord

ROUGH_ESTIMATE_BELOW = 20  # values per version under which "hopeless" waits for one round
TARGET_FACTOR = 1.2  # aim a little above the estimate: it comes from a noisy CI width
GROWTH_LIMIT = 4  # a round at most quadruples a benchmark's values: estimates from few values are unreliable

StopReason = str  # "all_resolved" | "no_candidates" | "budget_spent" | "rounds_spent"


def round_seed(seed: int, round_no: int) -> int:
    """The seed of follow-up round ``round_no``: a pure function of the run's seed and the round."""
    return random.Random(f"ordertrap-gate round {round_no} of {seed}").getrandbits(32)


# ---- planning ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Look:
    """One benchmark at one look: its verdict and what the planner needs to size a round."""

    name: str
    verdict: str
    reason: str
    samples_needed: int | None
    values_now: int  # per version (the smaller of base and head)
    values_per_suite_run: int  # iterations × measurements of its level configuration
    suite_run_s: float  # expected seconds of one suite run of it: both versions, all iterations
    # the trial structure, for the floor of the test over trials (gate/stats/rank.py trial_guard):
    # trials (processes) one suite run adds, values in each, and the fewest trials per version
    # with which a look can decide where a trial holds several values (0: no floor)
    trials_per_suite_run: int = 1
    values_per_trial: int = 1
    min_trials: int = 0


@dataclass(frozen=True)
class FollowUp:
    values_now: int
    values_needed: int
    suite_runs: int
    why: str

    def as_record(self) -> FollowUpRecord:
        return FollowUpRecord(self.values_now, self.values_needed, self.suite_runs, self.why)


@dataclass(frozen=True)
class NotFollowed:
    reason: str  # "hopeless" | "not_lack_of_data" | "budget_spent" | "rounds_spent"
    detail: str
    values_needed: int | None
    needs_s: float | None

    def as_record(self) -> NotFollowedRecord:
        needs_s = None if self.needs_s is None else round(self.needs_s, 3)
        return NotFollowedRecord(self.reason, self.detail, self.values_needed, needs_s)


@dataclass(frozen=True)
class RoundPlan:
    """The next round (``benchmarks`` empty and ``stop`` set when there is none)."""

    benchmarks: dict[str, FollowUp] = field(default_factory=dict)
    not_followed: dict[str, NotFollowed] = field(default_factory=dict)
    estimated_s: float = 0.0
    stop: StopReason | None = None

    @property
    def suite_runs(self) -> int:
        return max((f.suite_runs for f in self.benchmarks.values()), default=0)


def lacks_data(look: Look) -> bool:
    """Inconclusive with an estimate of the values that would resolve it: more data helps."""
    return look.verdict == "inconclusive" and look.samples_needed is not None


def _suite_runs_for(look: Look, values: int) -> int:
    """Suite runs of ``look``'s own level configuration that give ``values`` more values per version."""
    return math.ceil(max(0, values) / max(1, look.values_per_suite_run))


def floor_runs(look: Look) -> int:
    """The fewest suite runs a round must add to ``look`` so that the next look can decide at all:
    with fewer than ``min_trials`` trials of several values per version the test over trials
    cannot pass (:func:`gate.model.trial_floor`), and a round that stops short of it buys a
    look that can only say ``inconclusive``."""
    if look.min_trials <= 0 or look.values_per_trial < 2:
        return 0
    short = look.min_trials - look.values_now // look.values_per_trial
    return math.ceil(short / max(1, look.trials_per_suite_run)) if short > 0 else 0


def _runs_needed(look: Look) -> int:
    assert look.samples_needed is not None
    return max(_suite_runs_for(look, look.samples_needed - look.values_now), floor_runs(look))


def needs_s(look: Look) -> float:
    """Seconds of the suite runs that would bring ``look`` to the values its estimate asks for
    (and at least to the trials a verdict needs)."""
    return _runs_needed(look) * look.suite_run_s


def _estimate_is_rough(look: Look, time_left_s: float) -> bool:
    """Whether ``look``'s "values needed" rests on too few values to call it hopeless, and one
    round of growth (:data:`GROWTH_LIMIT` × its values) fits the time left. With a handful of values
    the bootstrap interval of a median spans nearly the whole sample, so the 1/√n extrapolation
    overstates what is needed; a round measures the spread before the planner gives up on it."""
    if look.values_now >= ROUGH_ESTIMATE_BELOW:
        return False
    extra = (GROWTH_LIMIT - 1) * max(1, look.values_now)
    return max(_suite_runs_for(look, extra), floor_runs(look)) * look.suite_run_s <= time_left_s


def plan_round(looks: Sequence[Look], *, time_left_s: float, rounds_done: int, max_rounds: int) -> RoundPlan:
    """Which benchmarks get the next round and how many extra suite runs each (module doc)."""
    inconclusive = [lk for lk in looks if lk.verdict == "inconclusive"]
    if not inconclusive:
        return RoundPlan(stop="all_resolved")
    not_followed: dict[str, NotFollowed] = {}
    candidates: list[Look] = []
    for lk in inconclusive:
        if not lacks_data(lk):
            not_followed[lk.name] = NotFollowed("not_lack_of_data", lk.reason, None, None)
        else:
            candidates.append(lk)
    if not candidates:
        return RoundPlan(not_followed=not_followed, stop="no_candidates")

    def left_as(reason: str) -> RoundPlan:
        for lk in candidates:
            not_followed[lk.name] = NotFollowed(reason, lk.reason, lk.samples_needed, needs_s(lk))
        return RoundPlan(not_followed=not_followed, stop=reason)

    if time_left_s <= 0:
        return left_as("budget_spent")
    followed: list[Look] = []
    for lk in candidates:
        cost = needs_s(lk)
        if cost > time_left_s and not _estimate_is_rough(lk, time_left_s):
            # even with all the time left it would not get there
            not_followed[lk.name] = NotFollowed(
                "hopeless",
                f"{lk.reason}; the {lk.samples_needed} values per version it needs would take about "
                f"{cost:.0f} s, more than the {time_left_s:.0f} s left",
                lk.samples_needed,
                cost,
            )
        else:
            followed.append(lk)
    if not followed:
        return RoundPlan(not_followed=not_followed, stop="no_candidates")
    if rounds_done >= max_rounds:
        # only those the time left could resolve were stopped by the rounds; a benchmark hopeless
        # now stays hopeless (another round would not resolve it, a larger budget might)
        for lk in followed:
            not_followed[lk.name] = NotFollowed("rounds_spent", lk.reason, lk.samples_needed, needs_s(lk))
        return RoundPlan(not_followed=not_followed, stop="rounds_spent")
    runs: dict[str, int] = {}
    for lk in followed:
        assert lk.samples_needed is not None
        target = min(math.ceil(TARGET_FACTOR * lk.samples_needed), GROWTH_LIMIT * max(1, lk.values_now))
        extra = max(0, target - lk.values_now)
        runs[lk.name] = max(1, _suite_runs_for(lk, extra), floor_runs(lk))
    by_name = {lk.name: lk for lk in followed}
    estimated = sum(k * by_name[n].suite_run_s for n, k in runs.items())
    if estimated > time_left_s:
        # scale every benchmark down alike; those reaching 0 are dropped, except that the time
        # the scaling leaves over goes to them one suite run each, cheapest to resolve first
        factor = time_left_s / estimated
        runs = {n: math.floor(k * factor) for n, k in runs.items()}
        # a benchmark scaled below its floor of trials would only buy a look that cannot decide
        runs = {n: (k if k >= floor_runs(by_name[n]) else 0) for n, k in runs.items()}
        spare = time_left_s - sum(k * by_name[n].suite_run_s for n, k in runs.items())
        for lk in sorted(followed, key=lambda x: (needs_s(x), x.name)):
            least = max(1, floor_runs(lk))
            if runs[lk.name] == 0 and least * lk.suite_run_s <= spare:
                runs[lk.name] = least
                spare -= least * lk.suite_run_s
        for n in [n for n, k in runs.items() if k == 0]:
            lk = by_name[n]
            not_followed[n] = NotFollowed("budget_spent", lk.reason, lk.samples_needed, needs_s(lk))
            del runs[n]
        if not runs:
            return RoundPlan(not_followed=not_followed, stop="budget_spent")
        estimated = sum(k * by_name[n].suite_run_s for n, k in runs.items())
    plan = {
        n: FollowUp(
            by_name[n].values_now,
            int(by_name[n].samples_needed or 0),
            k,
            by_name[n].reason,
        )
        for n, k in sorted(runs.items())
    }
    return RoundPlan(benchmarks=plan, not_followed=not_followed, estimated_s=estimated)


def looks_from_analysis(
    doc: Mapping[str, Any],
    values_per_suite_run: Mapping[str, int],
    suite_run_s: Mapping[str, float],
    trial_shape: Mapping[str, tuple[int, int]] | None = None,
    min_trials: int = 0,
) -> list[Look]:
    """The planner's view of an analysis.json document (gate/analysis/pipeline.build_analysis).
    ``trial_shape``: each benchmark's (trials per suite run, values per trial); ``min_trials``: the
    fewest trials per version a look can decide with (:func:`floor_runs`)."""
    out = []
    for b in doc["benchmarks"]:
        name = b["benchmark"]
        out.append(
            Look(
                name=name,
                verdict=str(b["verdict"]),
                reason=str(b.get("reason", "")),
                samples_needed=b.get("samples_needed"),
                values_now=min(int(b["base"]["n"]), int(b["head"]["n"])),
                values_per_suite_run=int(values_per_suite_run.get(name, 1)),
                suite_run_s=float(suite_run_s.get(name, 0.0)),
                trials_per_suite_run=(trial_shape or {}).get(name, (1, 1))[0],
                values_per_trial=(trial_shape or {}).get(name, (1, 1))[1],
                min_trials=min_trials,
            )
        )
    return out
