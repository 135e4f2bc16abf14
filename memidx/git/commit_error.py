"""What to tell the person when a git command of a memidx commit fails: git's own words are
long and name the wrong cause (a full disk fails git's lock file first)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from memidx.errors import GitBusy, GitError
from memidx.git.process import KILLED

# What git says when it cannot write, checked before its lock message: a full disk makes
# git fail to write even its own lock file ("sha1 file '.git/index.lock' write error").
CANNOT_WRITE = (
    (("Out of diskspace", "No space left on device"), "the disk is full", "free space on its disk"),
    (
        (
            "Read-only file system",
            "Permission denied",
            "Operation not permitted",
            "insufficient permission",
        ),
        "the repository cannot be written",
        "check its permissions and mount",
    ),
)
# GitPython's framing of git's error stream: `\n  stderr: '<git's words>'`
FRAMED = re.compile(r"\A\s*stderr: '(.*)'\s*\Z", re.DOTALL)


def not_committed(paths: Sequence[str]) -> str:
    """`a.md was not committed`, `a.md, b.md were not committed`."""
    return f"{', '.join(paths)} {'was' if len(paths) == 1 else 'were'} not committed"


def commit_error(stderr: str, paths: Sequence[str], undone: str | None = None) -> GitError:
    """The one-line error for a git command of a memidx commit of `paths` that failed with
    `stderr` (git's own, or as GitPython frames it), ending in `undone` when given."""
    undone = undone or not_committed(paths)
    stderr = (framed.group(1) if (framed := FRAMED.match(stderr)) else stderr).strip()
    if stderr.startswith("git ") and KILLED in stderr:  # CommandFailed's: the kill, first
        return GitError(f"{undone}: {stderr}", "nothing was committed; try again")
    for messages, why, remedy in CANNOT_WRITE:
        if any(message in stderr for message in messages):
            last = stderr.splitlines()[-1]
            return GitError(f"{undone}: {why} ({last})", f"{remedy}, then try again")
    if "index.lock" in stderr:
        return GitError(f"git kept its index locked; {undone}", "try again")
    if "Please tell me who you are" in stderr or "empty ident" in stderr:
        return GitError(
            f"git has no author identity, so {undone}",
            'set one: git config user.name "Your Name" && git config user.email you@example.com'
            ", then try again",  # a remember's note is kept: the same remember commits it
        )
    last = stderr.splitlines()[-1] if stderr else "git failed"
    return GitError(f"{undone}: {last}", "git's words; fix what they name, then try again")


def index_held(lock: Path, root: Path, undone: str) -> GitBusy:
    """GitBusy for git's index held past memidx's wait, naming who holds it when /proc tells
    (a `git switch` whose LFS smudge ran 12 s was "git kept its index locked", said of none)."""
    import os

    from memidx.git.lock_holders import holder

    who = holder(lock, root)
    if who is None or who.endswith(f"(pid {os.getpid()})"):  # none seen, or memidx's own
        return GitBusy(f"git kept its index locked; {undone}", "try again")
    return GitBusy(
        f"git's index was held by {who} for all of memidx's wait; {undone}",
        "try again once that command ends",
    )
