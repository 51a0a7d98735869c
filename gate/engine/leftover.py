"""The record of the process group a trial runs in, and the reaping of what a killed gate left.

:class:`~gate.engine.process.SubprocessRunner` keeps one record per run (``OUT/.running``
for ``run``): which process group runs now and when it was spawned, rewritten in place at every
spawn. A gate that is SIGKILLed cannot clean up after itself; the resumed run reads
that record first and kills the group it names (:func:`reap_leftover`), so no trial is measured
beside a leftover of the previous one. Linux ``/proc`` only, as the sandbox.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import suppress
from pathlib import Path


def kill_group(pid: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


RUNNING_WIDTH = 64  # bytes of the pid record (see reap_leftover), rewritten in place
_CLK_TCK = os.sysconf("SC_CLK_TCK")


def write_record(fd: int, record: str) -> None:
    """Overwrite the record in ``fd`` in place (one ``pwrite``; blanks: nothing to reap)."""
    os.pwrite(fd, record.ljust(RUNNING_WIDTH).encode(), 0)


def boot_ticks() -> float:
    """Now, in the unit of ``/proc/PID/stat``'s ``starttime``: clock ticks since boot."""
    return time.clock_gettime(time.CLOCK_BOOTTIME) * _CLK_TCK


def _proc_stat(pid: str) -> tuple[int, int] | None:
    """(process group, start time in ticks since boot) of a live process, or None (also for a
    zombie: it has exited, only its parent has not collected it yet)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # fields 3 (state), 5 (pgrp) and 22 (starttime) follow the ")" that ends the name
            fields = f.read().rsplit(b")", 1)[1].split()
        return None if fields[0] == b"Z" else (int(fields[2]), int(fields[19]))
    except (OSError, ValueError, IndexError):
        return None


def _holds_any(pid: str, links: set[str]) -> bool:
    """Whether process ``pid`` has a descriptor open on one of ``links`` (``pipe:[INODE]``)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # gone, or another user's
        return False
    for fd in fds:
        with suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") in links:
                return True
    return False


def reap_leftover(pid_file: Path, owned_dir: Path) -> int:
    """Kill the process group a SIGKILLed gate left running (a trial, a build or a reset), so the
    resumed run does not measure beside it (the gate cannot clean up after SIGKILL).

    ``pid_file`` holds what :class:`SubprocessRunner` recorded:

    * ``PGID FROM TO``: the group and the window of boot time in which its leader was spawned.
      The group is ours if its leader is alive and started in that window, or, when the leader
      has exited, if its members started after the window opened (Linux does not reuse a pid
      while it is some live process's group id). A reused pid started later, outside the window,
      and is never touched.
    * ``spawning FROM pipe:[A] pipe:[B]``: the gate died while spawning, before it learned the
      child's pid (the child runs before ``Popen`` returns). The child's stdout and stderr were
      created for it before the fork, so whatever holds one of them is that child or its
      descendants; their groups are killed if every live member started after FROM.
    * ``PGID`` alone (an older gate): the working-directory test, some member must run inside
      ``owned_dir``.

    Returns the number of processes killed."""
    try:
        text = pid_file.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return 0
    if len(text) == 4 and text[0] == "spawning":
        members = _reap_spawning(text[1], set(text[2:]))
    elif not text or not text[0].isdigit() or int(text[0]) <= 1:
        return 0
    else:
        members = _reap_group(text, owned_dir)
    with suppress(OSError):
        pid_file.write_text("")
    return members


def _reap_group(text: list[str], owned_dir: Path) -> int:
    pgid = int(text[0])
    window: tuple[float, float] | None = None
    if len(text) == 3:
        with suppress(ValueError):
            window = (float(text[1]), float(text[2]))
    leader = _proc_stat(text[0])
    owned = owned_dir.resolve()
    members = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        stat = _proc_stat(entry.name)
        if stat is None or stat[0] != pgid:
            continue
        if window is not None:  # leader alive: spawned in the window; gone: members started after it
            ours = window[0] <= leader[1] <= window[1] if leader is not None else stat[1] >= window[0]
        else:
            try:
                cwd = Path(os.readlink(entry / "cwd"))
            except OSError:
                continue
            ours = cwd == owned or owned in cwd.parents
        if ours:
            members += 1
    if members:
        kill_group(pgid)
    return members


def _reap_spawning(since: str, pipes: set[str]) -> int:
    try:
        start = float(since)
    except ValueError:
        return 0
    groups: dict[int, list[int]] = {}  # pgid -> start times of its live members
    holders: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        stat = _proc_stat(entry.name)
        if stat is None:
            continue
        groups.setdefault(stat[0], []).append(stat[1])
        # only a process started after the pipes were made can hold them (inherited from the gate)
        if stat[1] >= start and stat[0] not in holders and _holds_any(entry.name, pipes):
            holders.add(stat[0])
    members = 0
    for pgid in holders - {0, 1, os.getpgrp()}:
        # the spawn made this group; a group with an older member (one a descendant joined) is not ours
        if all(t >= start for t in groups[pgid]):
            kill_group(pgid)
            members += len(groups[pgid])
    return members
