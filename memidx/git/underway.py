"""What a person's git command is doing in a clone, read from git's own files (and, for a
commit under way, Linux's /proc): whether memidx may commit there now.

A cherry-pick or revert stopped on a conflict waits for the person (`--continue`, `--skip`,
`--abort`): a commit memidx made then went into their resolution, and `git cherry-pick --abort`
took the branch back past it, the note's file off the disk with it."""

from __future__ import annotations

from pathlib import Path

# The pseudo-refs git leaves while a pick waits for the person to resolve a conflict; git
# removes them as the resolution is committed, before that commit's post-commit hook runs.
# A `git am` stopped on a patch keeps HEAD on the branch too, and its --abort stops short the
# same way ("You seem to have moved HEAD since the last 'am' failure"): rebase-apply/applying
# is am's alone (a rebase's leaves HEAD detached, where memidx commits nothing anyway). Nor
# in am's post-applypatch hooks: one made in the hook of a last patch `git am --continue`
# applied made it die, "Dirty index: cannot apply patches" (memidx.memory.pending_notes).
STOPPED = (
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
    ("rebase-apply/applying", "a `git am`"),
)
# What else a git command leaves while it is under way, waiting for the person or not.
UNDER_WAY = (
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase or `git am`"),
    ("MERGE_HEAD", "a merge"),
    ("sequencer", "a cherry-pick or revert of several commits"),
    ("BISECT_LOG", "a bisect"),
)


def git_dir(root: Path) -> Path | None:
    """The git folder of this work tree (a linked work tree's own), None when there is none."""
    from memidx.git.repo import GitRepo

    found = GitRepo(root).run("rev-parse", "--absolute-git-dir", check=False).decode().strip()
    return Path(found) if found else None


def stopped_pick(folder: Path | None) -> str | None:
    """`a cherry-pick` or `a revert` when one is stopped on a conflict in `folder` (git's), or
    a sequence of them is in progress (SEQUENCE: what `git status` calls so)."""
    if folder is None:
        return None
    found = next((what for name, what in STOPPED if (folder / name).exists()), None)
    if found is None and (folder / "sequencer").is_dir() and not run_by_a_pick():
        return _sequence(folder)
    return found


# `git revert A..B` (or cherry-pick) whose pick fails as it starts ("your local changes would
# be overwritten", exit 128) leaves .git/sequencer and no REVERT_HEAD: `git status` says "Revert
# currently in progress", and a commit memidx made then made its --abort stop short ("You seem
# to have moved HEAD. Not rewinding"). A sequence running is no time to commit either: the
# next pick failed. Only its own post-commit hooks run inside it (memidx.memory.pending_notes).
SEQUENCE = " of several commits"


def _sequence(folder: Path) -> str:
    try:
        todo = (folder / "sequencer" / "todo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        todo = ""
    return ("a revert" if todo.lstrip().startswith("revert") else "a cherry-pick") + SEQUENCE


def run_by_a_pick() -> bool:
    """Whether this process runs under a `git cherry-pick` or `git revert` (in its hook: the
    sequence's own, which knows where it is), seen in Linux's /proc; elsewhere False."""
    import os

    pid = os.getppid()
    for _ in range(64):  # up the parents, bounded
        if pid <= 1:
            return False
        proc = Path(f"/proc/{pid}")
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            status = (proc / "status").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        if b"cherry-pick" in argv[1:4] or b"revert" in argv[1:4]:
            return Path(os.fsdecode(argv[0])).name == "git"
        ppid = [line for line in status.splitlines() if line.startswith("PPid:")]
        pid = int(ppid[0].split()[1]) if ppid else 0
    return False


def holding(stopped: str) -> str:
    """What `stopped` (stopped_pick's) is doing, in words: `a `git am` is ...` leaves its
    rebase-apply/applying while it applies its patches too (a `remember` during a running am
    was told it was stopped on a conflict)."""
    if stopped == AM:
        return f"{stopped} is under way or stopped on a patch"
    if stopped.endswith(SEQUENCE):
        return f"{stopped} is in progress (`git status` says so)"
    return f"{stopped} is stopped on a conflict"


AM = STOPPED[2][1]


def refuse_a_stopped_pick(folder: Path, undone: str) -> None:
    """GitBusy while a cherry-pick or revert waits for the person on a conflict: a commit made
    then (`forget`, the haystack's) made its `--abort` stop short ("You seem to have moved
    HEAD. Not rewinding"), the first picks and the conflict left in place."""
    from memidx.errors import GitBusy

    stopped = stopped_pick(folder)
    if stopped:
        raise GitBusy(
            f"{holding(stopped)}; {undone}, so that its --abort goes back where it began",
            "try again once it is continued, skipped or aborted",
        )


def busy_with(root: Path) -> str | None:
    """What holds the clone now (its index lock, a commit under way, an operation that waits
    for the person), or None when no git command of the clone is under way."""
    from memidx.git.publish import committers

    folder = git_dir(root)
    if folder is None:
        return "no git folder was found"
    if (folder / "index.lock").exists():
        return "git holds its index locked"
    from memidx.git.head_lock import head_locks

    # a ref update under way: no move of HEAD until it ends; its branch's lock too (one a
    # killed git left had status say `no git holds the clone now`, the finisher give up)
    for lock in head_locks(folder):
        return f"git holds HEAD's lock ({lock})"
    stopped = stopped_pick(folder)
    if stopped:
        return holding(stopped)
    for name, what in UNDER_WAY:
        if (folder / name).exists():
            return f"{what} is under way"
    if found := committers(root):  # said as what it is: a pull was "a git commit" too
        return f"a git {next(iter(found.values())).partition(' ')[0] or 'command'} is under way"
    return None


def quiet_by(root: Path, deadline: float) -> None:
    """Wait until `deadline` (time.monotonic()) at most for the clone's git to let go of its
    index and end its commits, what a memidx commit waits for: done before a lock others wait
    on is taken (a purge's writer lock, which filings waited 10 s and more behind). A lock a
    killed git left is not waited on: the commit says it."""
    import time

    for _ in range(10_000):  # bounded by the deadline
        if not git_holds(root) or time.monotonic() > deadline:
            return
        time.sleep(0.05)


def git_holds(root: Path) -> bool:
    """Whether a git of the clone holds its index (not a lock a killed git left) or commits."""
    from memidx.git.lock_holders import left_behind
    from memidx.git.publish import committers

    folder = git_dir(root)
    lock = folder / "index.lock" if folder is not None else None
    if lock is not None and lock.exists():
        return not left_behind(lock, root)
    return bool(committers(root))
