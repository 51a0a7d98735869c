"""Reading and writing files in places a pull request's code can write (a version's scratch
directory, its worktree): the one way adapters and the engine do it.

A benchmark decides what is at a path it can write: a FIFO (an unguarded ``read_text`` waits for
a writer until the job's timeout), a symbolic link to ``/dev/zero`` (reads until memory runs
out) or to a file the sandbox hides (the gate, outside, would read it for the benchmark), a huge
file. So :func:`read_bytes` guarantees:

* **no symbolic link** anywhere below ``root`` (each component is opened with ``O_NOFOLLOW``,
  relative to the one before: ``openat(2)``), and none as the file itself;
* **a regular file only**: opened with ``O_NONBLOCK`` (opening a FIFO does not wait), then
  refused unless ``fstat`` says regular (not a FIFO, socket, device or directory);
* **a size cap**: at most ``limit`` bytes (:data:`DEFAULT_LIMIT`), refused beyond;
* **a deadline**: reading stops with an error after ``deadline_s`` seconds.

Whatever goes wrong is an :class:`UnsafeFile` with a reason that names the file and the fix;
adapters turn it into a failed trial (the run goes on).

:func:`write_exclusive` writes a gate-owned file (a cache) with ``O_CREAT | O_EXCL | O_NOFOLLOW``
into a temporary name and renames it into place: a planted link is never written through.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

# Far above any benchmark result file a framework writes (a JMH or Criterion JSON of a long
# run: a few MB), far below what hurts the gate's memory.
DEFAULT_LIMIT = 64 * 1024 * 1024
DEFAULT_DEADLINE_S = 30.0
BINARY_LIMIT = 4 * 1024 * 1024 * 1024  # a test executable
_CHUNK = 1 << 20


class FileTooLarge(ValueError):
    """A file a user or an artifact handed the gate is larger than the gate reads whole."""


def read_text_within(path: Path, limit: int) -> str:
    """The UTF-8 text of a file a user names (links are followed: not a PR-writable place), read
    only when it has at most ``limit`` bytes; :class:`FileTooLarge` (a ValueError) otherwise. The
    size is checked on the open file and the read stops one byte past the limit, so a file that
    grows meanwhile is refused too."""
    with path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        data = b"" if size > limit else fh.read(limit + 1)
    if size > limit or len(data) > limit:
        raise FileTooLarge(
            f"{path} has {max(size, len(data)) / 1e6:,.0f} MB, more than the {limit / 1e6:,.0f} MB "
            "the gate reads whole"
        )
    return data.decode("utf-8")


class UnsafeFile(Exception):
    """A file in a PR-writable place that the gate does not read; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _open_beneath(path: Path, root: Path | None) -> int:
    """A descriptor of ``path``, no component below ``root`` (or the last one, without ``root``)
    being a symbolic link."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    if root is None:
        return os.open(path, flags)
    parts = path.relative_to(root).parts
    if not parts or ".." in parts:
        raise UnsafeFile(f"{path} is not a file below {root}")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = child
        return os.open(parts[-1], flags, dir_fd=fd)
    finally:
        os.close(fd)


def _regular(path: Path, root: Path | None, limit: int) -> int:
    """An open descriptor of the regular file ``path`` of at most ``limit`` bytes."""
    try:
        fd = _open_beneath(path, root)
    except FileNotFoundError:
        raise
    except OSError as exc:
        # ELOOP: a link where O_NOFOLLOW forbids one; ENOTDIR: a link (or file) used as a directory
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafeFile(
                f"{path} is (or lies below) a symbolic link; the gate reads only files the benchmark "
                "itself wrote there: write the result file, do not link it"
            ) from None
        raise UnsafeFile(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(
                f"{path} is not a regular file (a FIFO, socket, device or directory); the benchmark "
                "must write its result as a plain file"
            )
        if info.st_size > limit:
            raise UnsafeFile(_too_large(path, limit))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _chunks(path: Path, root: Path | None, limit: int, deadline_s: float) -> Iterator[bytes]:
    started = time.monotonic()
    fd = _regular(path, root, limit)
    try:
        size = 0
        while True:
            if time.monotonic() - started > deadline_s:
                raise UnsafeFile(f"reading {path} took more than {deadline_s:.0f} s")
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:  # not for a regular file; never wait
                raise UnsafeFile(f"{path} cannot be read without waiting") from None
            if not chunk:
                return
            size += len(chunk)
            if size > limit:  # grew while being read
                raise UnsafeFile(_too_large(path, limit))
            yield chunk
    finally:
        os.close(fd)


def read_bytes(
    path: Path,
    *,
    root: Path | None = None,
    limit: int = DEFAULT_LIMIT,
    deadline_s: float = DEFAULT_DEADLINE_S,
) -> bytes:
    """The bytes of the regular file ``path`` (see the module's guarantees); ``root``: the
    gate-owned directory below which no component may be a link. :class:`FileNotFoundError`
    when it does not exist, :class:`UnsafeFile` for everything else."""
    return b"".join(_chunks(path, root, limit, deadline_s))


def sha256(path: Path, *, limit: int = BINARY_LIMIT, deadline_s: float = 120.0) -> str:
    """The SHA-256 of the regular file ``path`` (an executable: a larger cap), read as
    :func:`read_bytes` reads."""
    digest = hashlib.sha256()
    for chunk in _chunks(path, None, limit, deadline_s):
        digest.update(chunk)
    return digest.hexdigest()


def _too_large(path: Path, limit: int) -> str:
    return f"{path} is larger than {limit // (1024 * 1024)} MiB, far more than any result file"


def read_text(path: Path, *, root: Path | None = None, limit: int = DEFAULT_LIMIT) -> str:
    """:func:`read_bytes` decoded as UTF-8 (undecodable bytes replaced)."""
    return read_bytes(path, root=root, limit=limit).decode("utf-8", errors="replace")


def write_exclusive(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a fresh name created with ``O_EXCL | O_NOFOLLOW`` in the
    same directory, renamed into place (``rename(2)`` replaces a link, never writes through it)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
