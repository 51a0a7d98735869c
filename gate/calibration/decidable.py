"""The smallest configuration with which a pull request's verdict can be anything but
``inconclusive``: the floors the analysis itself imposes, derived from its own rules.

µOpTime (§3.1) asks only for stability; the gate's verdict adds small-sample guards that no
stable configuration can pass when it is too small (docs/statistics.md "Small samples", "Few
trials"):

* **values per version** — below the median's distribution-free limit a change must pass the
  exact Mann-Whitney test, whose smallest two-sided p-value is 2 / C(2n, n)
  (:func:`gate.model.rank_floor`: 5 values at 99 %). The size guard of a low quantile, a
  one-sided test at 1 − confidence with smallest p 1 / C(2n, n), is reached with the same n.
* **trials per version** — where a trial holds several values, a change must survive the
  randomization test over trials (:func:`gate.stats.rank.trial_guard`, below
  :data:`gate.stats.rank.FEW_TRIALS` trials), whose smallest p-value is 1 / C(2k, k) against
  (1 − confidence)/2 (:func:`gate.model.trial_floor`: 5 trials at 99 %). One value per
  trial leaves this test out, and then the values' floor alone applies.

Both are taken at the confidence of a pull request's **first look**: with follow-up rounds every
look decides at ``1 − (1 − c)/(max_rounds + 1)`` (gate/rounds/config.py), which raises both
floors to 6 at 99 % and the default 3 rounds. A configuration below a floor could only say
``inconclusive`` on its first look, whatever the benchmark does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gate.model import rank_floor, trial_floor
from gate.rounds.config import per_look_confidence
from gate.stats.rank import FEW_TRIALS


@dataclass(frozen=True)
class Floor:
    """The fewest values and trials per version a configuration must give (``trials`` only where
    a trial holds several values) and the first look's confidence they come from."""

    values: int
    trials: int = 1
    confidence: float | None = None  # None: a floor given by hand (--min-values), not derived
    max_rounds: int = 0

    @staticmethod
    def trials_of(config: Sequence[int]) -> tuple[int, int]:
        """(trials, values per trial) of a configuration: every level but the innermost makes a
        trial (one process), the innermost its measurements (gate.calibration.dataset.Series.trials)."""
        if len(config) < 2:
            return 1, int(config[0])
        return math.prod(config[:-1]), int(config[-1])

    def shortfall(self, config: Sequence[int]) -> str | None:
        """Why ``config`` cannot reach a verdict under this floor, or None when it can."""
        values = math.prod(config)
        trials, per_trial = self.trials_of(config)
        at = "" if self.confidence is None else f" at {_pct(self.confidence)}"
        if values < self.values:
            return (
                f"{values} values per version, fewer than {self.values}: the exact rank test cannot "
                f"confirm a change{at}"
            )
        if per_trial >= 2 and 2 <= trials < self.trials:
            return (
                f"{trials} trials of {per_trial} values per version, fewer than {self.trials}: "
                f"reassigning whole trials cannot confirm a change{at}"
            )
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "values": self.values,
            "trials": self.trials,
            "confidence": self.confidence,
            "max_rounds": self.max_rounds,
        }


def floor_for(confidence: float, max_rounds: int) -> Floor:
    """The floor of a verdict at ``confidence`` on the first of ``max_rounds + 1`` looks (no
    follow-up rounds: ``max_rounds`` 0)."""
    look = per_look_confidence(confidence, max_rounds) if max_rounds > 0 else confidence
    # from FEW_TRIALS trials on the test over trials applies only where the log cannot show its
    # trials differ, and then its arrangements are many: never a floor above FEW_TRIALS
    return Floor(rank_floor(look), min(trial_floor(look), FEW_TRIALS), round(look, 10), max_rounds)


def _pct(confidence: float) -> str:
    return f"{confidence * 100:.4g}%"
