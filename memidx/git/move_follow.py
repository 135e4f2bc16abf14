"""What follows HEAD's move while memidx holds `.git/index.lock` (memidx.git.publish.move_head):
git's index brought to the new commit, and the lock let go.

When no copy of the index made before the move stands for it (memidx.git.index_swap: a
person's git wrote the index at each try, or none could be made), the move's shell did that
work once `git update-ref` ended: after the reference-transaction hook (memidx's shim and any
hook it chains) had run under the lock, with an `mv` per file the move deletes (50 files held
the lock 593 ms, against 48 ms on the fast path), and every `git add` or `git commit` of the
person's meanwhile failed ("index.lock: File exists"). Now memidx does it itself the moment
HEAD's ref shows the move, as the fast path does, and lets the lock go: a copy of the index,
the move's git command on it, the work tree (the files it writes checked out where nothing is,
those it deletes set aside in one folder and judged: memidx.git.move_aside), the copy renamed
over the index. The shell, which runs on when memidx is killed part way, finds the lock not its
own and ends; when memidx's follow could not be done (git failed: share's merge goes back), it
leaves all as it was and the shell does the work, as before."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from memidx.git import move_trace as trace
from memidx.git.index_swap import Gone, Prepared
from memidx.git.move_script import copy_index, let_go

OWN = "memidx-follow-index"  # `-<pid>` after it: memidx's own copy (a dead one's: index_copy)
ENDS = ("lock", "git")  # beside the copy: its git's lock, that git's pid (_ran)
Then = tuple[Sequence[str], Sequence[str]]  # the move's git command, the files it writes


def follow_move(
    root: Path,
    git_dir: Path,
    token: str,
    copied: tuple[Prepared | None, Gone],
    fast: bool,
    *,
    then: Then = ((), ()),
) -> None:
    """Once HEAD moved (index.lock memidx's, HEAD's let go): the READY copy renamed over git's
    index, else `then` followed here (followed), and the lock let go (the shell finds it not its
    own: done); else git's index copied for the git command the shell runs once update-ref
    ended."""
    from memidx.git.index_swap import swap

    prepared, gone = copied
    if (fast and prepared and swap(root, git_dir, prepared[1], gone)) or (
        then[0] and followed(root, git_dir, then, gone or {})
    ):
        let_go(git_dir, token)
        trace.mark("let-go")
    else:
        copy_index(git_dir)


def followed(root: Path, git_dir: Path, then: Then, gone: Mapping[str, bytes | None]) -> bool:
    """Run `git <then[0]>` on a copy of git's index, write `then[1]` where nothing is, delete
    `gone` where each still holds the bytes judged and rename the copy over the index (memidx
    holds index.lock); False when that could not be done, git's index and the work tree as they
    were. The stop signals wait until it is done (a Ctrl-C left files set aside)."""
    from memidx.portable_signals import stop_signals_held

    copy = git_dir / f"{OWN}-{os.getpid()}"
    with stop_signals_held():
        try:
            return (
                _copied(git_dir, copy)
                and _ran(root, then[0], copy)
                and _work_tree_and_index(root, git_dir, copy, then[1], gone)
            )
        finally:
            for path in (copy, *(copy.with_name(f"{copy.name}.{end}") for end in ENDS)):
                path.unlink(missing_ok=True)


def _copied(git_dir: Path, copy: Path) -> bool:
    """git's index copied to `copy`, its times kept (racy git); True where there is no index."""
    import shutil

    try:
        copy.with_name(f"{copy.name}.lock").unlink(missing_ok=True)  # a killed memidx's
        copy.unlink(missing_ok=True)
        if (git_dir / "index").exists():
            shutil.copy2(git_dir / "index", copy)
    except OSError:
        return False
    trace.mark("copied")
    return True


def _ran(root: Path, args: Sequence[str], copy: Path) -> bool:
    """Whether `git <args>` succeeded on `copy` (the stop signals held: a Ctrl-C waits for it).
    Its pid is written beside the copy (`<copy>.git`): the move's shell, memidx killed, waits
    while that git runs (it writes on, over an edit saved since), and no longer (a git killed
    with memidx left its lock of the copy, which held git's index.lock 10 s: move_script)."""
    import contextlib
    import subprocess

    from memidx.git.index_refresh import refreshed
    from memidx.git.repo import git_env

    env = {**git_env(), "GIT_INDEX_FILE": str(copy)}
    quiet = subprocess.DEVNULL
    try:
        git = subprocess.Popen(["git", *args], cwd=root, env=env, stdout=quiet, stderr=quiet)
    except OSError:
        return False
    with contextlib.suppress(OSError):  # none: the shell waits while the copy's lock is there
        copy.with_name(f"{copy.name}.git").write_text(str(git.pid))
    code = git.wait()
    if code == 0:  # a reset's paths refreshed alone (index_refresh), on the same copy
        refreshed(root, env, args)
    trace.mark("ran")
    return code == 0


def _work_tree_and_index(
    root: Path, git_dir: Path, copy: Path, files: Sequence[str], gone: Mapping[str, bytes | None]
) -> bool:
    """The files the move deletes set aside and judged (memidx.git.move_aside), those it writes
    checked out from `copy` where nothing is (one git), then `copy` renamed over git's index."""
    from memidx.git.index_swap import remove_emptied
    from memidx.git.move_aside import deleted_judged

    deleted = deleted_judged(root, git_dir, gone)
    trace.mark("judged")
    if files and not _checked_out(root, copy, files):
        return False  # the shell does it again: the files deleted stay so
    trace.mark("written")
    for path in deleted:  # as git's restore does; before the rename: a memidx killed after
        # it left them for good (the shell's restore on the new index matches nothing, fails)
        remove_emptied(root, (root / path).parent)
    try:
        copy.replace(git_dir / "index")
    except OSError:  # the shell does it again, as above
        return False
    trace.mark("renamed")
    return True


def _checked_out(root: Path, copy: Path, files: Sequence[str]) -> bool:
    """`files` written from `copy` where nothing is at their paths (a file there stays: git's
    `already exists`, its status not read); False when no git could run."""
    import subprocess

    from memidx.git.repo import git_env

    env = {**git_env(), "GIT_INDEX_FILE": str(copy)}
    listed = b"".join(os.fsencode(path) + b"\0" for path in files)
    argv = ["git", "checkout-index", "-q", "-z", "--stdin"]
    try:
        subprocess.run(argv, cwd=root, env=env, input=listed, capture_output=True, check=False)
    except OSError:
        return False
    return True
