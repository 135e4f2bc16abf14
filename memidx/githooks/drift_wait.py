"""The drift check beside memidx's own commit: remember, forget, a haystack commit or a hook
moves HEAD, then brings the index to it (memidx/index/following.py); a person's `git commit`
whose check came in between was refused, "the index has drifted from HEAD ... or a hook
failed" (tests/benchmark/chaos.py, seed 1), for a drift memidx was ending that moment."""

from __future__ import annotations

import time
from collections.abc import Callable

from memidx.config import Config
from memidx.index.following import followed_now

FOLLOW_WAIT = 10.0  # seconds a commit waits for memidx's follow before it goes on unblocked
POLL = 0.05
AT_HEAD_EVERY = 5  # polls between two reads of the index's commit (an SQLite open each)


def follow_ended(config: Config, at_head: Callable[[], bool] = lambda: False) -> bool:
    """Whether no memidx command of this clone is bringing the index to HEAD, once waited
    for (at most FOLLOW_WAIT seconds), or the index is at HEAD (`at_head`) though one still
    holds its lock: a share or forget holds it while it waits for git's index, which this very
    commit holds through its hooks, and held the commit for all its wait (8-9 s, chaos.py
    seeds 3 and 4) once another's follow was done; False when one still is."""
    deadline = time.monotonic() + FOLLOW_WAIT
    polls = 0
    while followed_now(config):
        if time.monotonic() >= deadline:
            return False
        polls += 1
        if polls % AT_HEAD_EVERY == 0 and at_head():
            return True
        time.sleep(POLL)
    return True


def drift_line(indexed: str | None, head: str | None, summary: str, fix: str) -> str:
    """The drift check's line for an index that is not HEAD's."""
    behind = (
        f" (it is at {indexed[:12]}, HEAD at {head[:12]}: a git operation no memidx hook "
        "followed, e.g. git reset where only pre-commit's hooks are installed, or a hook "
        "failed)"
        if indexed and head
        else ""
    )
    return f"memidx: the index has drifted from HEAD{behind}: {summary}; {fix}"
