"""A `memidx forget` that met a person's `git switch` and back: the note's branch was HEAD's when
the forget began, a switch landed as it committed, and it failed ("HEAD moved while ... was being
forgotten", exit 1) though the person was back a second later: 10 of 11 forgets failed in 40
rounds of tests/benchmark/lock_clash.py (a switch to side, a commit there and back, each round).
It is now made again, every check anew, once HEAD names that branch again and no git of the
clone is under way, within the wait a commit gives another git (memidx.git.commit.WAIT_SECONDS);
still away then, it fails as before, nothing forgotten."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from memidx.config import Config
from memidx.errors import MemidxError, SwitchedAway

T = TypeVar("T")
LOOK = 0.05  # seconds between looks at HEAD while it is away
TRIES = 5  # a person switching back and forth the whole time: it fails as before


class HeadMoved(MemidxError):
    """HEAD left the branch the forget began on while it was committing: nothing forgotten."""


def when_home(config: Config, once: Callable[[], T]) -> T:
    """`once()`, made again while it fails with HeadMoved and HEAD comes back within the wait
    to the branch it named when `once` began. One begun after a person's switch off the note's
    branch is not waited for: that person may stay (a wait of 10 s there made every forget in
    the 10 s after a deliberate switch wait its whole 10 s); it fails at once, as before."""
    from memidx.git.commit import WAIT_SECONDS
    from memidx.index.following import following

    deadline = time.monotonic() + WAIT_SECONDS
    for tries in range(1, TRIES + 1):
        home = _branch(config)
        try:
            with following(config, at_the_move=True):  # from HEAD's move: a search is told
                return once()
        except (HeadMoved, SwitchedAway):
            if tries == TRIES or home is None or not _back(config, home, deadline):
                raise
    raise AssertionError("unreachable: the last try returns or raises")


def _back(config: Config, home: str, deadline: float) -> bool:
    """Wait until HEAD names `home` again and no git of the clone is under way: False when it
    does not by `deadline`."""
    from memidx.git.underway import busy_with

    while time.monotonic() < deadline:
        if _branch(config) == home and busy_with(config.root) is None:
            return True
        time.sleep(LOOK)
    return False


def _branch(config: Config) -> str | None:
    from memidx.git.publish import head_names
    from memidx.git.underway import git_dir

    folder = git_dir(config.root)
    return None if folder is None else head_names(folder)
