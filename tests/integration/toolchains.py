"""Caches and environments for the end-to-end tests that build with a real toolchain fetched
from its registry (Maven Central, crates.io, npm): every download lands in one cache per user
under the temporary directory, so a second run builds offline, and CI (a fresh machine) fetches
once per run. ``ORDERTRAP_TEST_CACHE`` moves the caches elsewhere (e.g. a CI cache directory)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import require_tool


def cache_root() -> Path:
    root = os.environ.get("ORDERTRAP_TEST_CACHE") or str(
        Path("/tmp") / f"ordertrap-gate-toolcache-{os.getuid()}"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def maven_repo() -> Path:
    """Maven's local repository (``-Dmaven.repo.local``) shared by the tests' builds."""
    return cache_root() / "m2"


def npm_cache() -> Path:
    """npm's cache (``--cache``): ``npm ci --offline`` installs from it after the first download."""
    return cache_root() / "npm"


def cargo() -> str:
    """cargo from PATH, else rustup's default place (``~/.cargo/bin``): CI runs ``.ci/run`` with
    the machine's environment, where rustup's PATH line in a shell profile may not have been read."""
    found = shutil.which("cargo")
    if found:
        return found
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo") / "bin" / "cargo"
    if home.is_file():
        return str(home)
    return require_tool("cargo")  # skips (fails under CI) with the install hint


def run_checked(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{argv} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done.stdout
