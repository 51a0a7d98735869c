"""Adapter names as written in ``[suite] adapter = ...`` and the one place that builds them."""

from __future__ import annotations

import importlib
from typing import Final

from gate.adapters.base import Adapter
from gate.errors import ConfigError

# name -> (module, class); modules are imported lazily so one adapter's imports cannot break another.
_ADAPTERS: Final[dict[str, tuple[str, str]]] = {
    "command": ("gate.adapters.command", "CommandAdapter"),
    "pytest-benchmark": ("gate.adapters.pytest_benchmark", "PytestBenchmarkAdapter"),
    "go": ("gate.adapters.gotest", "GoTestAdapter"),
    "gbench": ("gate.adapters.gbench", "GoogleBenchmarkAdapter"),
    "hyperfine": ("gate.adapters.hyperfine", "HyperfineAdapter"),
    "jmh": ("gate.adapters.jmh", "JmhAdapter"),
    "criterion": ("gate.adapters.criterion", "CriterionAdapter"),
    "tinybench": ("gate.adapters.tinybench", "TinybenchAdapter"),
}

ADAPTER_NAMES: Final[tuple[str, ...]] = tuple(_ADAPTERS)


def adapter_class(name: str) -> type[Adapter]:
    """The class of adapter ``name``, its module imported now."""
    try:
        module_name, class_name = _ADAPTERS[name]
    except KeyError:
        raise ConfigError(
            f"unknown adapter {name!r}",
            f"set [suite] adapter to one of: {', '.join(ADAPTER_NAMES)}",
        ) from None
    cls: type[Adapter] = getattr(importlib.import_module(module_name), class_name)
    return cls


def get_adapter(name: str) -> Adapter:
    return adapter_class(name)()


def table_keys(name: str) -> tuple[str, ...]:
    """The keys adapter ``name`` reads from its own table (``[go]``, ``[jmh]``, …); () for an
    unknown name (reported as such by the configuration)."""
    return tuple(adapter_class(name).table_keys) if name in _ADAPTERS else ()


def benchmark_keys(name: str) -> tuple[str, ...]:
    """The ``[[benchmark]]`` keys adapter ``name`` reads besides the core ones."""
    return tuple(adapter_class(name).benchmark_keys) if name in _ADAPTERS else ()
