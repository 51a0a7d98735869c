"""Which security-relevant ``[suite]`` keys a run obeys on GitHub, and who may turn the sandbox off.

A pull request's run reads ``.ordertrap.toml`` from base (gate/config/config_files.py), except
when base has none (a repository adopting the gate in that very pull request) or a workflow
passes ``--config-from head``/``worktree``: then head's file is used, and head is the code under
test. Most of its keys only change what is measured, which the comment reports. A few decide
what the pull request's code may reach — the sandbox, the secrets passed into it, and (from the
sandbox's own settings) the network and places outside the worktree. On GitHub, for an event
that anyone opening a pull request can start, those keys in a configuration head chose are
ignored (their defaults apply) with a warning naming each one: the pull request cannot loosen
its own confinement. Events only people with write access start (``push``, ``schedule``,
``workflow_dispatch``: merged or pushed code, the same list run/action.yml reads head's files
for) keep head's values.

Turning the sandbox off is never a file's choice on GitHub, base's file included: it takes the
run action's ``sandbox`` input (``run --sandbox off``), which lives in the workflow, where a
reviewer of the workflow sees it. ``sandbox = "off"`` in a file is ignored there with a warning
naming the input; elsewhere (a developer's machine) the file is obeyed as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any, Final

from gate.config.project_config import ProjectConfig, SuiteConfig
from gate.files.settings import SANDBOX_MODES
from gate.model import warning
from gate.warning_codes import WarningCode

# [suite] keys a configuration chosen by head does not set on GitHub: the sandbox, the secrets
# passed into it, its network and unix sockets, and its binds of places outside the worktree (writable caches,
# read-only toolchains under $HOME: either could expose or poison the runner's files).
HEAD_IGNORED_SUITE_KEYS: Final[tuple[str, ...]] = (
    "sandbox",
    "pass_env",
    "network",
    "unix_sockets",
    "caches",
    "toolchains",
)
# GitHub events only people with write access start (run/action.yml reads head's files for them)
TRUSTED_EVENTS: Final[tuple[str, ...]] = ("push", "schedule", "workflow_dispatch")
INPUT_FIX: Final = (
    "if only trusted code ever runs on this runner, turn the sandbox off in the workflow: "
    "the run action's input `sandbox: off` (run --sandbox off)"
)


def on_github(env: Mapping[str, str]) -> bool:
    return env.get("GITHUB_ACTIONS") == "true"


def head_untrusted(env: Mapping[str, str]) -> bool:
    """On GitHub, for an event a pull request's author can start (any event but the trusted ones;
    an unknown or missing event name counts as untrusted)."""
    return on_github(env) and env.get("GITHUB_EVENT_NAME", "") not in TRUSTED_EVENTS


def apply(
    config: ProjectConfig,
    *,
    chosen_by_head: bool,
    sandbox_flag: str | None,
    env: Mapping[str, str],
    where: str,
) -> tuple[ProjectConfig, list[dict[str, str]]]:
    """``config`` with the keys above reset where they may not be head's choice, and
    ``sandbox_flag`` (``run --sandbox``, the workflow's input) over the file's ``sandbox``.
    Returns the warnings naming what was ignored. ``where``: the file as the warning names it."""
    if sandbox_flag is not None and sandbox_flag not in SANDBOX_MODES:
        raise ValueError(f"sandbox mode {sandbox_flag!r}")
    suite = config.suite
    warnings: list[dict[str, str]] = []
    if chosen_by_head and head_untrusted(env):
        defaults: dict[str, Any] = {f.name: f.default for f in fields(SuiteConfig)}
        ignored = [k for k in HEAD_IGNORED_SUITE_KEYS if getattr(suite, k) != defaults[k]]
        if ignored:
            suite = replace(suite, **{k: defaults[k] for k in ignored})
            shown = ", ".join(f"[suite] {k}" for k in ignored)
            event = env.get("GITHUB_EVENT_NAME") or "unknown"
            warnings.append(
                warning(
                    WarningCode.HEAD_SECURITY_KEYS_IGNORED,
                    f"{where} was chosen by head (the code under test) and sets {shown}: ignored on "
                    f"GitHub for a `{event}` event, the defaults apply (a pull request cannot loosen "
                    "the confinement of its own code)",
                    "set these keys in the base branch's configuration (merged first); turning the "
                    "sandbox off takes the run action's input `sandbox: off`",
                )
            )
    if sandbox_flag is not None:
        suite = replace(suite, sandbox=sandbox_flag)
    elif suite.sandbox == "off" and on_github(env):
        suite = replace(suite, sandbox="auto")  # on GitHub: the sandbox is required
        warnings.append(
            warning(
                WarningCode.SANDBOX_OFF_IGNORED,
                f'{where} sets [suite] sandbox = "off": ignored on GitHub, builds and benchmarks run '
                "in the sandbox (a file cannot turn it off there)",
                f'remove sandbox = "off" from the file; {INPUT_FIX}',
            )
        )
    if suite is config.suite:
        return config, warnings
    return replace(config, suite=suite), warnings
