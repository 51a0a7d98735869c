"""The gate's own programs come from a PATH without the places benchmarks can write
(gate/host/programs.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gate.errors import RunError
from gate.host import programs


def _program(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_path_entries_under_home_temp_and_the_run_and_relative_ones_are_dropped(tmp_path):
    home, out = tmp_path / "home", tmp_path / "elsewhere" / "out"
    env = {"HOME": str(home), "TMPDIR": str(tmp_path / "t")}
    path = os.pathsep.join(
        [str(home / ".local/bin"), "bin", "", str(out / "scratch"), "/tmp/x", "/usr/bin", "/usr/bin"]
    )
    places = programs.writable_places(env, [out])
    assert programs.trusted_path(path, places) == "/usr/bin"


def test_a_program_that_links_into_a_writable_place_is_refused_with_a_fix(tmp_path):
    home, trusted = tmp_path / "home", tmp_path / "usr" / "bin"
    planted = _program(home / ".local" / "bin", "git")
    trusted.mkdir(parents=True)
    (trusted / "git").symlink_to(planted)
    _program(trusted, "go")
    found = programs.Programs(str(trusted), [home])  # the places as writable_places gives them
    assert found.find("go") == str(trusted / "go")
    assert found.find("git") is None
    with pytest.raises(RunError) as err:
        found.require("git", "apt-get install git")
    assert f"{trusted / 'git'} is (a link to) a file under {home}" in str(err.value)
    assert "install git system-wide" in err.value.fix


def test_the_gates_subprocesses_get_the_trusted_path(tmp_path):
    found = programs.resolve({"HOME": str(tmp_path), "PATH": f"{tmp_path}/bin:/usr/bin:/bin"})
    assert found.env({"PATH": "x", "A": "1"}, B="2") == {"PATH": "/usr/bin:/bin", "A": "1", "B": "2"}
    assert found.find("sh") == "/usr/bin/sh" or found.find("sh") == "/bin/sh"
