"""The one module that calls operating-system-specific APIs: file locks.

POSIX systems use `fcntl.flock` (the lock dies with the process, so a killed memidx never
leaves one behind); Windows uses the `filelock` package, a dependency there only.
`tests/unit/test_portability.py` fails when a POSIX-only module is imported anywhere else.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path, *, wait: bool = True) -> Generator[bool]:
    """Hold an exclusive lock on `path` (created when missing) for the block; yields whether
    it was taken, which is always True when `wait` is (the block then waits its turn)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import filelock

        lock = filelock.FileLock(str(path), timeout=-1 if wait else 0)
        try:
            lock.acquire()
        except filelock.Timeout:
            yield False
            return
        try:
            yield True
        finally:
            lock.release()
        return
    import fcntl

    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
