"""The moment memidx is about to move HEAD, told by the git layer to whoever asked
(memidx.index.following): a command's `following` lock is taken then, not while it waits.

remember, forget, a haystack commit, the MCP server's remember and the pending notes' finisher
held their `following` lock (a search told "a memidx command of this clone is bringing the
index to HEAD now", a commit's drift check waiting up to 10 s for it to end) from their start,
through their wait of up to 10 s for a person's git (a `git commit` in its editor), before
HEAD moved at all: a search said so of an index that was behind for another reason, and a
person's commit whose check found a drift waited for memidx, which waited for that commit.
Per thread (a context variable: the MCP server answers in threads of its own)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar

Said = tuple[Callable[[], None], Callable[[], None]]  # taken at a move, let go at a wait
_TOLD: ContextVar[Said | None] = ContextVar("memidx_head_move", default=None)


@contextmanager
def told(take: Callable[[], None], drop: Callable[[], None]) -> Generator[None]:
    """Within the block, `take()` runs when memidx is about to move HEAD (at each move), and
    `drop()` when it waits again with nothing of its own to follow (not_moving)."""
    token = _TOLD.set((take, drop))
    try:
        yield
    finally:
        _TOLD.reset(token)


def about_to_move() -> None:
    """Said by memidx's git layer just before it moves HEAD (memidx.git.commit.publish)."""
    said = _TOLD.get()
    if said is not None:
        said[0]()


def not_moving() -> None:
    """Said when a move memidx was about to make did not happen and it waits again (a haystack
    commit a person's switch beat, waiting for the switch back): the lock is let go."""
    said = _TOLD.get()
    if said is not None:
        said[1]()
