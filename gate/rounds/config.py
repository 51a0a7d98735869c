"""The budget of follow-up rounds (``run --budget``, ``[adaptive]``) and the error rule of its looks.

The budget's duration grammar and the range of the rounds are declared once with every other
setting (gate/files/settings.py: ``BUDGET``, ``MAX_ROUNDS``); :func:`parse_duration` and
:func:`check_max_rounds` word them for ``.ordertrap.toml`` and ``run``'s flags.
:class:`AdaptiveConfig` is the one value that carries the budget through a run.

Error control: every look (the planned analysis, each follow-up analysis) tests again, so the
chance of a false verdict grows with the number of looks. The union bound over the
``L = max_rounds + 1`` possible looks keeps it at the overall level when every look uses
``1 - (1 - c) / L`` (Bonferroni: the conservative form of a group sequential design with equal
alpha spending per look; Jennison & Turnbull, *Group Sequential Methods with Applications to
Clinical Trials*, 2000, ch. 1-2). The verdict at any look is then false with probability at most
``(1 - c) / L``, and over all looks at most ``1 - c``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gate.errors import ConfigError
from gate.files.run_meta import AdaptiveRecord, LookRule
from gate.files.schema import Invalid
from gate.files.settings import BUDGET, DEFAULT_MAX_ROUNDS, MAX_ROUNDS

OVERALL_CONFIDENCE = 0.99
RULE_NAME = "bonferroni-looks"


def parse_duration(text: Any, where: str = "--budget") -> float:
    """Seconds in ``900``, ``900s``, ``15m``, ``1h30m`` (``0`` = off); a TOML number is seconds
    (the domain and the grammar: :data:`gate.files.settings.BUDGET`)."""
    fix = f"write {where} as seconds or with units: 900, 900s, 15m, 1h30m (0 turns follow-up rounds off)"
    try:
        return float(BUDGET.value(text, where))
    except Invalid as bad:
        if bad.expected == "a number":
            raise ConfigError(f"{where} must be a duration, got {text!r}", fix) from None
        raise ConfigError(f"{where} {text!r} is {BUDGET.problem(bad)}", fix) from None


def check_max_rounds(value: Any, where: str = "--max-rounds") -> int:
    """A number of rounds in :data:`gate.files.settings.MAX_ROUNDS`'s domain."""
    try:
        return MAX_ROUNDS.value(value, where)
    except Invalid:
        raise ConfigError(
            f"{where} must be {MAX_ROUNDS.expected}, got {value!r}",
            f"set {where} to e.g. {DEFAULT_MAX_ROUNDS} (to turn follow-up rounds off, set the budget to 0)",
        ) from None


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


def adaptive_record(adaptive: AdaptiveConfig) -> AdaptiveRecord | None:
    """meta.json ``adaptive`` at the start of a run (docs/contracts.md): no rounds, no ``final``."""
    if not adaptive.on:
        return None
    return AdaptiveRecord(
        budget_s=adaptive.budget_s,
        max_rounds=adaptive.max_rounds,
        rule=look_rule(adaptive.max_rounds, OVERALL_CONFIDENCE),
    )
