"""The pre-commit drift check's way on where blocking would help no one: the index brought
to HEAD as the post-commit hook would (missing, its build unfinished, older than this memidx,
behind a rebase's picks), the commit blocked only when that fails (split from checks.py)."""

from __future__ import annotations

import contextlib
import sqlite3

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.githooks.notices import warn


def build_index(config: Config, fix: str) -> list[str]:
    """Build the missing index at HEAD, as the post-commit hook would (which creates it too):
    nothing is lost when it is deleted, and nothing blocks before its first commit."""
    missing = f"the missing index at {config.index_path}"
    return to_head(config, fix, f"built {missing}", f"cannot build {missing}")


def build_unfinished(config: Config) -> bool:
    """Whether the index's build started and never completed: an agent's hook leaves the
    filling to the background embed or a detached sync, which a commit may come during (or
    after it was killed); a damaged index is not this question's."""
    from memidx.index.connection import connect_reader
    from memidx.index.schema import build_problem

    with (
        contextlib.suppress(MemidxError, sqlite3.Error),
        contextlib.closing(connect_reader(config.index_path)) as conn,
    ):
        return build_problem(conn) is not None
    return False


def complete_index(config: Config, fix: str) -> list[str]:
    """Complete the index's build at HEAD, as the post-commit hook would (it waits for a build
    under way): the commit is not blocked for what that hook does anyway."""
    unfinished = f"the index at {config.index_path}, whose build had not completed"
    return to_head(config, fix, f"completed {unfinished}", f"cannot complete {unfinished}")


def to_head(config: Config, fix: str, done: str, failed: str, *, blocks: bool = True) -> list[str]:
    """Bring the index to HEAD as the post-commit hook would, saying `done`; else the one
    problem, `failed` and why, or (not `blocks`: the index is only older than this memidx,
    nothing the commit did) the same in a warning, and the commit goes on."""
    from memidx.index.connection import trouble
    from memidx.memory.head_sync import sync_to_head

    try:
        # a git hook too: the commit's post-commit hook, which keeps the line said, said the
        # waiting upgrade's line again after this check's
        lines = sync_to_head(config, once=True)
    except (MemidxError, sqlite3.Error, OSError) as exc:  # a lock, a full disk, a read-only one
        why = exc if isinstance(exc, MemidxError) else trouble(exc, config.index_path)
        if why is None:
            raise  # damage: the command says so, as for any other use of the index
        if blocks:
            return [f"memidx: {failed}: {why}; {fix}"]
        warn(config, f"memidx: {failed}: {why}; the commit goes on (the next git hook or {fix})")
        return []
    for line in (*lines, done):
        warn(config, f"memidx: {line}")
    return []
