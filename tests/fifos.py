"""A FIFO in place of a file memidx reads or writes: whether a call waits on it."""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def at_once(path: Path, call: Callable[[], T]) -> list[T]:
    """What `call` returned with a FIFO at `path` (made there, in place of anything else): []
    when it waited on it (a bound for the fault only: done at once), which is then let go."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(path) and not stat.S_ISFIFO(os.lstat(path).st_mode):
        path.unlink()
    if not os.path.lexists(path):  # the FIFO of a call before stays
        os.mkfifo(path)
    done: list[T] = []
    waiting = threading.Thread(target=lambda: done.append(call()), daemon=True)
    waiting.start()
    waiting.join(5.0)
    for way in (os.O_WRONLY, os.O_RDONLY):  # a call waiting to open it (the fault) is let go
        with contextlib.suppress(OSError):
            os.close(os.open(path, way | os.O_NONBLOCK))
    return done
