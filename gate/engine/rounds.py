"""Follow-up rounds: after the planned suite runs, more RMIT suite runs for the benchmarks that
are ``inconclusive`` for lack of data, within a wall-time budget (docs/running.md, "Follow-up rounds").

This module is PURE apart from :class:`WallClock`: it decides which benchmarks get a round, how
many extra suite runs each, how that fits the time left, and why the rounds stop. The loop that
runs them is :class:`gate.adaptive.loop.Rounds`, started by :func:`gate.engine.measure.measure`.

Error control: every look (the planned analysis, each follow-up analysis) tests again, so the
chance of a false verdict grows with the number of looks. The union bound over the
``L = max_rounds + 1`` possible looks keeps it at the overall level when every look uses
``1 - (1 - c) / L`` (Bonferroni: the conservative form of a group sequential design with equal
alpha spending per look; Jennison & Turnbull, *Group Sequential Methods with Applications to
Clinical Trials*, 2000, ch. 1-2). The verdict at any look is then false with probability at most
``(1 - c) / L``, and over all looks at most ``1 - c``.
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from gate.errors import ConfigError
from gate.files.run_meta import AdaptiveRecord, FollowUpRecord, LookRule, NotFollowedRecord
from gate.files.trial_log import elapsed_by_trial

if TYPE_CHECKING:
    import pandas as pd

# ---- configuration ------------------------------------------------------------------------------
DEFAULT_MAX_ROUNDS = 3
MAX_ROUNDS_LIMIT = 20  # each round is one more look: 20 already asks c_look = 1 - (1 - c)/21
MAX_BUDGET_S = 7 * 24 * 3600.0
ROUGH_ESTIMATE_BELOW = 20  # values per version under which "hopeless" waits for one round
OVERALL_CONFIDENCE = 0.99
RULE_NAME = "bonferroni-looks"
TARGET_FACTOR = 1.2  # aim a little above the estimate: it comes from a noisy CI width
GROWTH_LIMIT = 4  # a round at most quadruples a benchmark's values: estimates from few values are unreliable

StopReason = str  # "all_resolved" | "no_candidates" | "budget_spent" | "rounds_spent"

_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?")


def parse_duration(text: Any, where: str = "--budget") -> float:
    """Seconds in ``900``, ``900s``, ``15m``, ``1h30m`` (``0`` = off); a TOML number is seconds."""
    fix = f"write {where} as seconds or with units: 900, 900s, 15m, 1h30m (0 turns follow-up rounds off)"
    if isinstance(text, bool):
        raise ConfigError(f"{where} must be a duration, got {text!r}", fix)
    if isinstance(text, int | float):
        seconds = float(text)
    elif isinstance(text, str):
        s = text.strip().lower().replace(" ", "")
        m = _DURATION.fullmatch(s)
        if s and re.fullmatch(r"\d+(?:\.\d+)?", s):
            seconds = float(s)
        elif s and m is not None and any(m.groups()):
            h, mi, sec = (float(g) if g else 0.0 for g in m.groups())
            seconds = h * 3600 + mi * 60 + sec
        else:
            raise ConfigError(f"{where} {text!r} is not a duration", fix)
    else:
        raise ConfigError(f"{where} must be a duration, got {text!r}", fix)
    if not math.isfinite(seconds) or seconds < 0 or seconds > MAX_BUDGET_S:
        raise ConfigError(f"{where} {text!r} is outside 0 s … {MAX_BUDGET_S / 86400:g} days", fix)
    return seconds


def check_max_rounds(value: Any, where: str = "--max-rounds") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ROUNDS_LIMIT:
        raise ConfigError(
            f"{where} must be a whole number from 1 to {MAX_ROUNDS_LIMIT}, got {value!r}",
            f"set {where} to e.g. {DEFAULT_MAX_ROUNDS} (to turn follow-up rounds off, set the budget to 0)",
        )
    return value


@dataclass(frozen=True)
class AdaptiveConfig:
    """``[adaptive]`` of .ordertrap.toml: budget in seconds (0 = off) and the most rounds."""

    budget_s: float = 0.0
    max_rounds: int = DEFAULT_MAX_ROUNDS

    @property
    def on(self) -> bool:
        return self.budget_s > 0


def per_look_confidence(confidence: float, max_rounds: int) -> float:
    """The confidence every look uses so that all ``max_rounds + 1`` looks together keep ``confidence``."""
    return 1.0 - (1.0 - confidence) / (max_rounds + 1)


def look_rule(max_rounds: int, confidence: float = OVERALL_CONFIDENCE) -> LookRule:
    """meta.json ``adaptive.rule`` (docs/contracts.md)."""
    return LookRule(
        name=RULE_NAME,
        confidence=confidence,
        looks=max_rounds + 1,
        confidence_per_look=round(per_look_confidence(confidence, max_rounds), 10),
    )


def round_seed(seed: int, round_no: int) -> int:
    """The seed of follow-up round ``round_no``: a pure function of the run's seed and the round."""
    return random.Random(f"ordertrap-gate round {round_no} of {seed}").getrandbits(32)


# ---- the budget clock --------------------------------------------------------------------------
class BudgetClock(Protocol):
    def used_s(self) -> float:
        """Budget seconds used so far (the measuring phase)."""
        ...

    def trial_s(self, benchmark: str, version: str, rows: pd.DataFrame) -> float:
        """Expected seconds of one trial of ``benchmark``@``version`` (``rows``: its rows in the log)."""
        ...


def mean_trial_elapsed(rows: pd.DataFrame) -> float:
    """Mean ``elapsed_s`` of the trials in ``rows`` (all rows of a trial share it)."""
    import pandas as pd

    if rows.empty or "elapsed_s" not in rows.columns:
        return 0.0
    per_trial = rows.drop_duplicates(["trial"]) if "trial" in rows.columns else rows
    value = pd.to_numeric(per_trial["elapsed_s"], errors="coerce").mean()
    return float(value) if math.isfinite(value) else 0.0


class WallClock:
    """Wall time since the first planned trial of this invocation, plus ``prior_s`` (the summed
    ``elapsed_s`` of trials logged by earlier, interrupted invocations: their gaps are unknown).

    :meth:`trial_s` adds to a benchmark's mean trial time the gate's mean overhead per trial
    (process start-up, resets, layout, the in-process analyses): the wall time used minus the
    trials' own ``elapsed_s``, over the trials in ``log``."""

    def __init__(self, log: Path | None = None, prior_s: float = 0.0) -> None:
        self._start = time.monotonic()
        self.prior_s = prior_s
        self._log = log
        self._cache: tuple[int, float, int] = (-1, 0.0, 0)

    def used_s(self) -> float:
        return self.prior_s + time.monotonic() - self._start

    def _logged(self) -> tuple[float, int]:
        if self._log is None or not self._log.exists():
            return 0.0, 0
        size = self._log.stat().st_size
        if size != self._cache[0]:  # read again only when trials were added
            seen = elapsed_by_trial(self._log)
            self._cache = (size, sum(seen.values()), len(seen))
        return self._cache[1], self._cache[2]

    def overhead_s(self) -> float:
        elapsed, trials = self._logged()
        return max(0.0, self.used_s() - elapsed) / trials if trials else 0.0

    def trial_s(self, benchmark: str, version: str, rows: pd.DataFrame) -> float:
        return mean_trial_elapsed(rows) + self.overhead_s()


def adaptive_record(adaptive: AdaptiveConfig) -> AdaptiveRecord | None:
    """meta.json ``adaptive`` at the start of a run (docs/contracts.md): no rounds, no ``final``."""
    if not adaptive.on:
        return None
    return AdaptiveRecord(
        budget_s=adaptive.budget_s,
        max_rounds=adaptive.max_rounds,
        rule=look_rule(adaptive.max_rounds, OVERALL_CONFIDENCE),
    )


def prior_elapsed_s(log_path: Path, finished: set[int]) -> float:
    """Summed ``elapsed_s`` of the finished trials in the log: the budget used by earlier,
    interrupted invocations (their gaps between trials were not recorded)."""
    if not finished:
        return 0.0
    return sum(s for trial, s in elapsed_by_trial(log_path).items() if trial in finished)


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


def needs_s(look: Look) -> float:
    """Seconds of the suite runs that would bring ``look`` to the values its estimate asks for."""
    assert look.samples_needed is not None
    return _suite_runs_for(look, look.samples_needed - look.values_now) * look.suite_run_s


def _estimate_is_rough(look: Look, time_left_s: float) -> bool:
    """Whether ``look``'s "values needed" rests on too few values to call it hopeless, and one
    round of growth (:data:`GROWTH_LIMIT` × its values) fits the time left. With a handful of values
    the bootstrap interval of a median spans nearly the whole sample, so the 1/√n extrapolation
    overstates what is needed; a round measures the spread before the planner gives up on it."""
    if look.values_now >= ROUGH_ESTIMATE_BELOW:
        return False
    extra = (GROWTH_LIMIT - 1) * max(1, look.values_now)
    return _suite_runs_for(look, extra) * look.suite_run_s <= time_left_s


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
        runs[lk.name] = max(1, _suite_runs_for(lk, extra))
    by_name = {lk.name: lk for lk in followed}
    estimated = sum(k * by_name[n].suite_run_s for n, k in runs.items())
    if estimated > time_left_s:
        # scale every benchmark down alike; those reaching 0 are dropped, except that the time
        # the scaling leaves over goes to them one suite run each, cheapest to resolve first
        factor = time_left_s / estimated
        runs = {n: math.floor(k * factor) for n, k in runs.items()}
        spare = time_left_s - sum(k * by_name[n].suite_run_s for n, k in runs.items())
        for lk in sorted(followed, key=lambda x: (needs_s(x), x.name)):
            if runs[lk.name] == 0 and lk.suite_run_s <= spare:
                runs[lk.name] = 1
                spare -= lk.suite_run_s
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
) -> list[Look]:
    """The planner's view of an analysis.json document (gate/analysis/pipeline.build_analysis)."""
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
            )
        )
    return out
