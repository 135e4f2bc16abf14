"""A lock memidx's writers wait for a bounded time: a process that never lets go (stopped with
Ctrl-Z, hung) fails the command in one line naming the lock, never holds it for ever."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from memidx.errors import MemidxError
from memidx.portable import file_lock


@contextmanager
def waited_lock(
    lock: Path, wait: float, holders: str, error: type[MemidxError] = MemidxError
) -> Generator[None]:
    """Hold `lock`, waiting `wait` seconds at most for it; then `error`, naming the lock and
    what may hold it (`holders`), with nothing written."""
    with file_lock(lock, timeout=wait) as taken:
        if not taken:
            raise error(
                f"another memidx process has held {lock} for {wait:g} s ({holders}): nothing "
                "was written",
                f"try again once it ends; `fuser -v {lock}` names it",
            )
        yield
