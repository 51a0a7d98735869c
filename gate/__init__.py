"""ordertrap-gate: a CI performance regression gate built on randomized multiple interleaved trials."""

__version__ = "0.1.0"
