"""The budget of follow-up rounds (``run --budget``, ``[adaptive]``) and the error rule of its looks.

One grammar for a duration (:func:`parse_duration`) and one range for the rounds
(:func:`check_max_rounds`) serve ``.ordertrap.toml``, the command line and the action inputs;
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

import math
import re
from dataclasses import dataclass
from typing import Any

from gate.errors import ConfigError
from gate.files.run_meta import AdaptiveRecord, LookRule

DEFAULT_MAX_ROUNDS = 3
MAX_ROUNDS_LIMIT = 20  # each round is one more look: 20 already asks c_look = 1 - (1 - c)/21
MAX_BUDGET_S = 7 * 24 * 3600.0
OVERALL_CONFIDENCE = 0.99
RULE_NAME = "bonferroni-looks"

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


def adaptive_record(adaptive: AdaptiveConfig) -> AdaptiveRecord | None:
    """meta.json ``adaptive`` at the start of a run (docs/contracts.md): no rounds, no ``final``."""
    if not adaptive.on:
        return None
    return AdaptiveRecord(
        budget_s=adaptive.budget_s,
        max_rounds=adaptive.max_rounds,
        rule=look_rule(adaptive.max_rounds, OVERALL_CONFIDENCE),
    )
