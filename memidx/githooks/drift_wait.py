"""The drift check beside memidx's own commit: remember, forget, a haystack commit or a hook
moves HEAD, then brings the index to it (memidx/index/following.py); a person's `git commit`
whose check came in between was refused, "the index has drifted from HEAD ... or a hook
failed" (tests/benchmark/chaos.py, seed 1), for a drift memidx was ending that moment."""

from __future__ import annotations

import time

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.git.refs import head_moved_at, read_head
from memidx.githooks.notices import warn
from memidx.index.following import followed_now
from memidx.waited_lock import SAY_AFTER, say_waiting

FOLLOW_WAIT = 10.0  # seconds a commit waits for memidx's follow before it goes on unblocked
WAITED_FOR = (  # a commit begun as memidx moved HEAD: each waited 10 s for the other
    "a memidx command of this clone waits for this commit to end before it brings the index to "
    "HEAD: the commit goes on without the drift check (`memidx status` says any drift once "
    "it ends)"
)
POLL = 0.05


def following_head(config: Config) -> bool:
    """Whether a memidx command of this clone is bringing the index to the HEAD it moved (a
    command begun since HEAD last moved has moved nothing: it may be waiting for this very
    commit's git, which holds the index, as a `remember` does)."""
    return followed_now(config, head_moved_at(config.root))


def follow_ended(config: Config) -> bool:
    """Whether memidx's follow ended, once waited for (at most FOLLOW_WAIT seconds): no command
    of this clone brings the index to HEAD any more, or the index is at HEAD (a command that goes
    on after its sync, or waits for this commit's git, is not waited for).
    False, said in a warning, when one still is after FOLLOW_WAIT: the commit goes on."""
    from memidx.git.late_waits import waited_for
    from memidx.git.underway import git_dir

    start, folder = time.monotonic(), git_dir(config.root)
    said = False
    for _ in range(100_000):  # bounded by FOLLOW_WAIT
        if not following_head(config) or _at_head(config):
            return True
        if folder is not None and waited_for(folder):  # memidx follows once this git ended
            warn(config, f"memidx: {WAITED_FOR}")
            return False
        waited = time.monotonic() - start
        if waited >= FOLLOW_WAIT:
            break
        if not said and waited >= SAY_AFTER:  # a commit that hung in silence for 10 s
            said = True
            say_waiting(
                f"memidx: waiting up to {FOLLOW_WAIT - waited:.0f} s more for a memidx command "
                "of this clone to bring the index to HEAD"
            )
        time.sleep(POLL)
    warn(
        config,
        f"memidx: a memidx command of this clone is still bringing the index to HEAD after "
        f"{FOLLOW_WAIT:g} s: the commit goes on without the drift check (`memidx status` says "
        "any drift once it ends)",
    )
    return False


def _at_head(config: Config) -> bool:
    """Whether the index's commit is HEAD's now."""
    from memidx.index.store import open_store

    head = read_head(config.root)
    try:
        store, _ = open_store(config.index_path, write=False)
    except MemidxError:
        return False
    try:
        return head is not None and store.get_state("indexed_commit") == head
    finally:
        store.conn.close()


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
