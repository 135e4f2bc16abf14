"""A lock memidx's writers wait for a bounded time: a process that never lets go (stopped with
Ctrl-Z, hung) fails the command in one line naming the lock, never holds it for ever."""

from __future__ import annotations

import sys
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from memidx.errors import MemidxError
from memidx.portable import file_lock

# Seconds a writer waits in silence for a lock before it says so on a terminal.
SAY_AFTER = 2.0


@contextmanager
def waited_lock(
    lock: Path, wait: float, holders: str, error: type[MemidxError] = MemidxError
) -> Generator[None]:
    """Hold `lock`, waiting `wait` seconds at most for it; then `error`, naming the lock and
    what may hold it (`holders`), with nothing written. A wait past SAY_AFTER seconds is said
    on a terminal (a `git commit` whose check waited a minute for a build showed nothing)."""
    left = wait
    if wait > SAY_AFTER:
        with file_lock(lock, timeout=SAY_AFTER) as taken:
            if taken:
                yield
                return
        left = wait - SAY_AFTER
        if sys.stderr.isatty():
            print(
                f"memidx: waiting up to {left:g} s more for {lock} ({holders})",
                file=sys.stderr,
                flush=True,
            )
    with file_lock(lock, timeout=left) as taken:
        if not taken:
            raise error(
                f"another memidx process has held {lock} for {wait:g} s ({holders}): nothing "
                "was written",
                f"try again once it ends; `fuser -v {lock}` names it",
            )
        yield
