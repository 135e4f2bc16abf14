"""How long a `memidx remember` takes on this machine now, for tests that tell a command that
left a git alone at once from one that waited memidx's whole wait for it (WAIT_SECONDS, 10 s).

Under load (`make test` runs two test processes per core beside other engineers' work) one
remember took 7-9 s with no wait in it, past the 6 or 8 s such tests allowed: the wait is
bounded on top of the same command run just before, never in absolute seconds. A wait of 10 s
still shows whole; the noise between two runs of the same command is less (at_once)."""

from __future__ import annotations

import subprocess
import sys
import time

from memidx.git.commit import WAIT_SECONDS
from tests.helpers import NotesRepo, Run, clean_env

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


# `memidx ARGS` with its waits for git (WAIT_SECONDS, 10 s; a side commit's is read from it
# when memidx.git.side_commit is imported) made LONG_WAIT: where that wait is not what is tested
LONG_WAIT = 120.0
WAITING_LONG = """\
import sys
from memidx.git import commit
commit.WAIT_SECONDS = {wait!r}
from memidx.git import side_commit
side_commit.WAIT_SECONDS = {wait!r}
from memidx.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""


def memidx_waiting_long(repo: NotesRepo, *args: str, stdin: str | None = None) -> Run:
    """`memidx ARGS` as a new process in `repo` whose waits for git are LONG_WAIT, given half
    of it: told by what it did, a command that left a git alone at once from one that waited
    for it on any load (a bound of twice a remember alone and 5 s could not fail once a
    remember alone took over 5 s, as one that waited took a remember alone and 10 s). One
    still waiting then is killed, and its Run says so (code -9)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", WAITING_LONG.format(wait=LONG_WAIT), *args],
            cwd=repo.root, env=clean_env(MEMIDX_ROOT=str(repo.root)), input=stdin,
            capture_output=True, text=True, check=False, timeout=LONG_WAIT / 2,
        )  # fmt: skip
    except subprocess.TimeoutExpired as late:
        still = f"still waiting after {late.timeout:g} s; it said: {_text(late.stderr)!r}"
        return Run(-9, _text(late.stdout), still)
    return Run(done.returncode, done.stdout, done.stderr)


def _text(said: bytes | str | None) -> str:
    return said.decode("utf-8", "replace") if isinstance(said, bytes) else said or ""
