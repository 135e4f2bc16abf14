"""How long a `memidx remember` takes on this machine now, for tests that tell a command that
left a git alone at once from one that waited memidx's whole wait for it (WAIT_SECONDS, 10 s).

Under load (`make test` runs two test processes per core beside other engineers' work) one
remember took 7-9 s with no wait in it, past the 6 or 8 s such tests allowed: the wait is
bounded on top of the same command run just before, never in absolute seconds. A wait of 10 s
still shows whole; the noise between two runs of the same command is less (at_once)."""

from __future__ import annotations

import time

from memidx.git.commit import WAIT_SECONDS
from tests.helpers import NotesRepo

ALONE_TITLE = "Timed alone"
AT_ONCE = WAIT_SECONDS / 2  # seconds past the command alone that still count as no wait


def at_once(alone: float) -> float:
    """The most seconds a command that left a git alone takes, given one remember `alone`: one
    that finds a git in its way looks at it twice (its commit, and once more after), each look
    about a remember alone (16 s against 11 alone, load average 20); memidx's wait, 10 s a
    look, is past it on any load."""
    return 2 * alone + AT_ONCE


def remember_alone(repo: NotesRepo, **env: str) -> float:
    """Wall seconds of one `memidx remember` (a new process, committing a note of its own,
    "memidx remember: Timed alone") in `repo`, with nothing to wait for."""
    began = time.monotonic()
    done = repo.memidx_process(
        "remember", "--title", ALONE_TITLE, stdin="A note timed alone.\n", **env
    )
    took = time.monotonic() - began
    assert done.code == 0 and "not committed" not in done.err, done.err
    return took
