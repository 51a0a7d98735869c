"""A configuration head chose cannot loosen the sandbox on GitHub (gate/config/trusted_keys.py):
every key that decides what the pull request's code may reach is reset, with one warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.config import trusted_keys
from gate.config.project_config import parse_config

LOOSE = b"""[suite]
adapter = "command"
network = true
unix_sockets = true
caches = ["/var/lib/runner-secrets"]
toolchains = ["~/.ssh"]
pass_env = ["MY_DEPLOY_TOKEN"]
[[benchmark]]
name = "probe"
command = "true"
[full]
suite_runs = 1
iterations = 3
measurements = 1
"""
PR_EVENT = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"}


@pytest.mark.parametrize("key", ["network", "unix_sockets", "caches", "toolchains", "pass_env"])
def test_head_cannot_open_the_network_or_bind_places_outside_the_worktree(key: str) -> None:
    config = parse_config(LOOSE, Path(".ordertrap.toml"))
    kept, warnings = trusted_keys.apply(
        config, chosen_by_head=True, sandbox_flag=None, env=PR_EVENT, where="head's .ordertrap.toml"
    )
    assert getattr(config.suite, key)  # set by the file
    assert not getattr(kept.suite, key)  # the default on a pull request's event
    (w,) = warnings
    assert f"[suite] {key}" in w["message"]


def test_on_a_push_head_keeps_them() -> None:
    config = parse_config(LOOSE, Path(".ordertrap.toml"))
    kept, warnings = trusted_keys.apply(
        config,
        chosen_by_head=True,
        sandbox_flag=None,
        env={"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push"},
        where="head's .ordertrap.toml",
    )
    assert kept.suite.network is True and kept.suite.caches and warnings == []
