"""The first bytes of the index file, read without ending SQLite's locks on it.

POSIX ends every lock a process holds on a file when the process closes any descriptor of it,
SQLite's locks included. A process that read the index's header with open() and close() while
it had a connection to the index (the MCP server reads on one, writes on another) lost them;
the next process to close its connection then took itself for the last one, checkpointed and
deleted the -wal and -shm under the live connection, which went on reading its stale copy (or
failing with "disk I/O error") until it ended. SQLite keeps its own descriptors open while the
process holds a lock for the same reason; so does this: one descriptor per index path, kept
while the path holds the same file, at most HELD of them per process."""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from pathlib import Path

HELD = 8  # index paths whose descriptor stays open (a process has one index, tests many)
_held: OrderedDict[str, int] = OrderedDict()
_lock = threading.Lock()


def read_header(path: Path, size: int) -> bytes:
    """The first `size` bytes of `path` (fewer when it is shorter); OSError as open() raises."""
    if sys.platform == "win32":  # pragma: no cover - Windows locks by handle, and an open file
        with path.open("rb") as file:  # there could not be replaced by a rebuilt index
            return file.read(size)
    with _lock:
        fd = _descriptor(path)
        os.lseek(fd, 0, os.SEEK_SET)
        return os.read(fd, size)


def _descriptor(path: Path) -> int:
    """The held descriptor of the file at `path`, opened when none is held or the path holds
    another file now (a rebuilt index: the old file's descriptor is closed, so its disk space
    is freed)."""
    name = str(path)
    fd = _held.pop(name, None)
    try:
        found = path.stat()
    except OSError:
        if fd is not None:
            os.close(fd)  # the file is gone: its space is freed once no one holds it
        raise
    if fd is not None and os.path.samestat(os.fstat(fd), found):
        _held[name] = fd
        return fd
    if fd is not None:
        os.close(fd)
    fd = os.open(name, os.O_RDONLY)  # not inherited by child processes
    _held[name] = fd
    while len(_held) > HELD:
        os.close(_held.popitem(last=False)[1])
    return fd
