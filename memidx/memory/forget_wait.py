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
from pathlib import Path
from typing import TypeVar

from memidx.config import Config
from memidx.errors import MemidxError, SwitchedAway

T = TypeVar("T")
LOOK = 0.05  # seconds between looks at HEAD while it is away
TRIES = 5  # a person switching back and forth the whole time: it fails as before


class HeadMoved(MemidxError):
    """HEAD left the branch the forget began on while it was committing: nothing forgotten."""


def when_home(config: Config, ref: str, once: Callable[[], T]) -> T:
    """`once()`, made again while it fails with HeadMoved and HEAD comes back within the wait
    to the branch it named when `once` began; begun once a switch that took HEAD lately off a
    branch holding `ref` (to one without it) is back, within the same wait."""
    from memidx.git.commit import WAIT_SECONDS
    from memidx.index.following import following

    deadline = time.monotonic() + WAIT_SECONDS
    for tries in range(1, TRIES + 1):
        left = _left_lately(config, ref, WAIT_SECONDS)
        if left is not None:  # back by then, or it fails as before (held elsewhere)
            _back(config, left, deadline)
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


def _left_lately(config: Config, ref: str, within: float) -> str | None:
    """The branch a `git switch` or checkout left within the last `within` seconds (HEAD's
    reflog's last line) when it holds `ref` and HEAD does not: a person looking at another
    branch for a moment, whose forget failed at once ("is not in HEAD's commit, but main holds
    it"; "staged in git's index (never committed)": a note memidx committed on main that the
    switch took along): 10 of 20 in a loop beside lock_clash's person. None otherwise."""
    from memidx.git.repo import GitRepo
    from memidx.git.underway import git_dir

    folder = git_dir(config.root)
    line = b"" if folder is None else _last_line(folder / "logs" / "HEAD")
    said, _, words = line.partition(b"\t")
    fields = said.split()
    if len(fields) < 2 or not words.startswith(b"checkout: moving from "):
        return None
    try:
        when = float(fields[-2])
    except ValueError:
        return None
    left = words.removeprefix(b"checkout: moving from ").split(b" to ")[0].decode(errors="replace")
    if not 0 <= time.time() - when <= within or not left:
        return None
    repo = GitRepo(config.root)
    branch = f"refs/heads/{left}"
    if repo.has(branch, ref) and not repo.has("HEAD", ref):
        return branch
    return None


def _last_line(log: Path) -> bytes:
    """The last line of a reflog, read from its end (a long-lived clone's is megabytes)."""
    try:
        with log.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - 4096))
            return file.read().rstrip(b"\n").rpartition(b"\n")[2]
    except OSError:
        return b""


def _branch(config: Config) -> str | None:
    from memidx.git.publish import head_names
    from memidx.git.underway import git_dir

    folder = git_dir(config.root)
    return None if folder is None else head_names(folder)
