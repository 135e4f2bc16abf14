"""commit.lock: one memidx commit (or share's pull) at a time in a clone, so HEAD moves for one.

A holder that hung (stopped with Ctrl-Z, a pull that never ends) held every later `remember`
for ever: a commit waits for the lock until its own deadline, then gives up as it does for a
busy git (GitBusy: `remember` keeps its note pending)."""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import contextmanager

from memidx.config import Config
from memidx.errors import GitBusy
from memidx.portable import file_lock

LOCK = "commit.lock"  # in the state folder


@contextmanager
def serialized(
    config: Config, deadline: float | None = None, undone: str = "nothing was committed"
) -> Generator[None]:
    """Hold commit.lock for the block; waited for until `deadline` (time.monotonic()) when one
    is given, then GitBusy naming the lock and saying `undone`."""
    lock = config.state_dir / LOCK
    wait = None if deadline is None else max(deadline - time.monotonic(), 0.1)
    with file_lock(lock, timeout=wait) as taken:
        if not taken:
            raise GitBusy(
                f"another memidx process held {lock} for {wait:.3g} s; {undone}",
                f"try again once it ends; `fuser -v {lock}` names it",
            )
        yield
