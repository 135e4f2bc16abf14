"""Waiting for another git of this clone: while it holds the index lock or commits, for a
bounded time, before memidx commits or runs a git that moves HEAD (memidx/git/commit.py). A lock
no running process holds was left by a killed git or memidx: said, never waited out."""

from __future__ import annotations

import random
import time
from pathlib import Path

from memidx.errors import IndexLockLeft
from memidx.git.commit_error import index_held
from memidx.git.lock_holders import left_behind
from memidx.git.still_busy import still_busy

STALE_CHECK_SECONDS = 1.0  # how often a lock that stays is checked for a killed owner


def wait_until_quiet(root: Path, git_dir: Path, undone: str, deadline: float) -> None:
    """Wait while a git of this clone is committing or holds the index (until `deadline`),
    before memidx runs a git that moves HEAD itself (`git pull`); GitError saying `undone`."""
    from memidx.git.publish import committing

    for attempt in range(10_000):  # bounded by the deadline
        wait_for_index(git_dir / "index.lock", root, undone, deadline)
        if not committing(root):
            return
        if time.monotonic() > deadline:
            break
        pause(min(attempt, 2))
    still_busy(root, git_dir, undone)


def wait_for_index(lock: Path, root: Path, undone: str, deadline: float) -> None:
    """Wait while another git process holds the index lock (until `deadline`): the user's
    index is updated after the commit. A lock that no running process holds was left by a
    killed git: waiting for it is pointless, and removing it is the user's call."""
    checked = -STALE_CHECK_SECONDS
    for attempt in range(10_000):  # bounded by the deadline
        if not lock.exists():
            return
        if time.monotonic() - checked >= STALE_CHECK_SECONDS:
            checked = time.monotonic()
            if left_behind(lock, root):  # a killed git's, or a killed memidx move's
                from memidx.git.left_lock import described

                left = described(root, lock)
                raise IndexLockLeft(
                    f"{left.said} (no running process holds it); {undone}",
                    f"check that no git command is running, then {left.todo()}",
                )
        if time.monotonic() > deadline:
            break
        pause(min(attempt, 2))  # short waits: a person's commits can follow closely
    raise index_held(lock, root, undone)


def pause(attempt: int) -> None:
    time.sleep(0.05 * 2**attempt * (1 + random.random()))
