"""A person's git command that started in the instant memidx moved HEAD: waited for, and
what memidx committed checked once it ends.

memidx moves HEAD only while no git of the clone commits, and looks for one while it holds
HEAD's lock (memidx/git/publish.py). A `git merge` (a `git pull`'s) or a `git commit` that
starts right after that look reads HEAD and git's index as they were before memidx's commit
and writes that index back after memidx told it about the note: with a merge held there by
a core.fsmonitor hook (tests/cli/test_late_merge.py) the merge failed ("cannot lock ref
'HEAD'") and left the index without the note, MERGE_HEAD kept, and the person's `git commit`
that concluded it deleted the note from the branch. So after every move memidx looks once
more: a committing git there now may hold the clone as it was; memidx waits for it to end,
checks that HEAD still holds what it committed, and tells git's index about its paths again
(what it does after every commit). One that outlasts the wait, or that took the paths out
of HEAD: GitBusy, and the note stays pending (committed again once that git ends).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from memidx.errors import GitBusy
from memidx.text import display

LATE_FLOOR = 2.0  # seconds a late git is waited for at least, past the commit's own deadline
PAUSE = 0.02


class StillUnderWay(GitBusy):
    """A git that started as memidx moved HEAD still runs, or changed what memidx moved."""


# a purge's (memidx.git.rewrite): the bytes it blanked may come back, and it blanks them again
PURGE_AGAIN = "run `memidx haystack purge` again once that git ends: it blanks them again"


def settle(
    repo: Any,
    late: dict[str, str],
    commit: str,
    paths: Sequence[str],
    deadline: float,
    *,
    purge: bool = False,
) -> None:
    """Wait for the committing gits `late` (publish.committers' answer, read right after the
    move) to end, until `deadline` or LATE_FLOOR from now; StillUnderWay when one still runs
    or when HEAD no longer holds `commit`'s `paths` as the commit does. `purge`: `commit` is a
    purge's rewrite of HEAD, said in its words (it said "memidx's commit of <segment> ... is
    not counted as committed yet" of forgotten bytes that may be staged again)."""
    from pathlib import Path

    from memidx.git.late_waits import waiting_for

    what = ", ".join(map(display, paths))  # a name with a line break: on one line, as elsewhere
    with waiting_for(Path(str(repo.git_dir)), late):  # its drift check does not wait for memidx
        running = wait_for(late, max(deadline, time.monotonic() + LATE_FLOOR))
    did = "the purge's rewrite of HEAD" if purge else f"memidx's commit of {what}"
    by = f"{did} ({commit[:12]})"
    if running and purge:
        raise StillUnderWay(
            f"a git {running} of this clone that started with {by} is still under way; it may "
            f"stage the forgotten bytes of {what} again",
            PURGE_AGAIN,
        )
    if running:
        raise StillUnderWay(
            f"a git {running} of this clone that started with {by} is still under way; it may "
            f"leave {what} out of git's index, so it is not counted as committed yet",
            "it is checked and committed again once that git ends (`memidx sync` does it too)",
        )
    for path in paths:  # a deletion (forget, share's move) is held as no object at all
        if _object(repo, f"HEAD:{path}") == _object(repo, f"{commit}:{path}"):
            continue
        if purge:
            raise StillUnderWay(
                f"a git command of this clone that started with {by} changed {display(path)} in "
                "HEAD since, so HEAD may hold its forgotten bytes again",
                PURGE_AGAIN,
            )
        raise StillUnderWay(
            f"a git command of this clone that started with {by} took {display(path)} out of "
            "HEAD, so "
            "it is not committed",
            "it is committed again from the file on disk (`memidx sync` does it too)",
        )


def _object(repo: Any, spec: str) -> str:
    """The object `spec` (`<commit>:<path>`) names, "" when that commit holds no such path."""
    from memidx.git.plumbing import CommandFailed

    try:
        return str(repo.git.rev_parse("-q", "--verify", spec)).strip()
    except CommandFailed:
        return ""


def wait_for(late: dict[str, str], until: float) -> str:
    """Wait until every process of `late` ended (or `until`): the git command of one still
    running, "" when none is."""
    from memidx.git.publish import started

    for _ in range(100_000):  # bounded by `until`; the count only bounds the loop
        running = [said for pid, said in late.items() if started(pid) == said.split()[-1]]
        if not running or time.monotonic() > until:
            return running[0].split()[0] if running else ""
        time.sleep(PAUSE)
    return ""
