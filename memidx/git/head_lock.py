"""HEAD's lock taken while memidx would move HEAD: another git's ref update under way holds
`.git/HEAD.lock` (and its branch's `refs/heads/<name>.lock`), or a killed git left it. memidx's
move of HEAD failed each time, and after its 10 s wait it said "HEAD kept moving" of a HEAD
that never moved, with "try again", which no waiting helps when the lock was left behind."""

from __future__ import annotations

from pathlib import Path
from shlex import quote

from memidx.errors import GitBusy, IndexLockLeft
from memidx.git.lock_holders import holder, left_behind


def head_locks(git_dir: Path) -> list[Path]:
    """The locks git takes to move HEAD that are there now: HEAD's own, then its branch's."""
    locks = [git_dir / "HEAD.lock"]
    head, common = _read(git_dir / "HEAD"), git_dir
    pointer = _read(git_dir / "commondir")  # a linked work tree's: its refs are the main one's
    if pointer:
        common = (git_dir / pointer).resolve()
    if head.startswith("ref: refs/"):
        locks.append(common / f"{head.removeprefix('ref: ')}.lock")
    return [lock for lock in locks if lock.exists()]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return ""


def refuse_a_left_head_lock(root: Path, git_dir: Path, undone: str) -> None:
    """IndexLockLeft when a lock of HEAD's is one a killed git left (no process holds it, no
    git runs in the clone): no waiting ends it, only its removal, which is the person's call."""
    for lock in head_locks(git_dir):
        if left_behind(lock, root):
            raise IndexLockLeft(
                f"{lock} was left behind by a git process that was killed (no running process "
                f"holds it), so HEAD could not be moved; {undone}",
                f"check that no git command is running, then remove it: rm {quote(str(lock))}",
            )


def not_moved(root: Path, git_dir: Path, undone: str) -> GitBusy:
    """GitBusy for a move of HEAD that failed for all of memidx's wait: naming the lock of
    HEAD's another git held, and who holds it when that can be seen; else HEAD kept moving."""
    for lock in head_locks(git_dir):
        who = holder(lock, root)
        by = f"held by {who}" if who else "held by another git command of this clone"
        return GitBusy(
            f"{lock} was {by} for all of memidx's wait, so HEAD could not be moved; {undone}",
            "try again once that command ends",
        )
    return GitBusy(f"HEAD kept moving; {undone}", "try again")
