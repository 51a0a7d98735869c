"""Reading files in places a benchmark can write (gate/files/bounded.py): regular files only, no
link followed, a size cap; gate-owned files written without following a planted link."""

from __future__ import annotations

import os
import threading

import pytest

from gate.files import bounded


def test_a_plain_file_is_read(tmp_path):
    (tmp_path / "r.json").write_bytes(b'{"a": 1}')
    assert bounded.read_text(tmp_path / "r.json", root=tmp_path) == '{"a": 1}'
    with pytest.raises(FileNotFoundError):
        bounded.read_bytes(tmp_path / "missing.json")


def test_a_fifo_is_refused_at_once_not_waited_for(tmp_path):
    os.mkfifo(tmp_path / "r.json")
    # a FIFO with no writer: an unguarded open() would block this thread for good
    result: list[BaseException] = []

    def read() -> None:
        try:
            bounded.read_bytes(tmp_path / "r.json")
        except BaseException as exc:  # handed to the test thread
            result.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "reading a FIFO waited for a writer"
    assert isinstance(result[0], bounded.UnsafeFile) and "not a regular file (a FIFO" in str(result[0])


@pytest.mark.parametrize("target", ["/dev/zero", "elsewhere.json"])
def test_a_link_is_not_followed(tmp_path, target):
    (tmp_path / "elsewhere.json").write_text("{}")
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "r.json").symlink_to(target if target.startswith("/") else tmp_path / target)
    with pytest.raises(bounded.UnsafeFile, match="symbolic link"):
        bounded.read_bytes(tmp_path / "scratch" / "r.json", root=tmp_path / "scratch")


def test_a_linked_directory_below_the_root_is_not_followed(tmp_path):
    (tmp_path / "elsewhere" / "new").mkdir(parents=True)
    (tmp_path / "elsewhere" / "new" / "sample.json").write_text("{}")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "bench").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(bounded.UnsafeFile, match="symbolic link"):
        bounded.read_bytes(tmp_path / "home" / "bench" / "new" / "sample.json", root=tmp_path / "home")


def test_a_file_above_the_cap_is_refused(tmp_path):
    (tmp_path / "r.json").write_bytes(b"x" * 2048)
    with pytest.raises(bounded.UnsafeFile, match="larger than"):
        bounded.read_bytes(tmp_path / "r.json", limit=1024)
    assert len(bounded.read_bytes(tmp_path / "r.json", limit=4096)) == 2048


def test_a_gate_file_replaces_a_planted_link_instead_of_writing_through_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "cache.json").symlink_to(victim)
    bounded.write_exclusive(tmp_path / "cache.json", b"{}")
    assert victim.read_text() == "keep"
    assert not (tmp_path / "cache.json").is_symlink() and (tmp_path / "cache.json").read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.json", "victim"]
