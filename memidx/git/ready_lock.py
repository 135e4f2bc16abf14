"""The git that writes memidx's copy of the index made before a move (memidx.git.index_swap's
READY), and the `.lock` such a git left when it was killed.

git writes an index by making `<index>.lock`, writing it and renaming it over the index: a git
killed in between (SIGKILL, the process group killed with memidx, a machine that went down)
left `memidx-ready-index.lock`, on which the git of each prepare after it failed ("File
exists"), so memidx held git's index.lock for its whole follow at each move from then on. So
the git that writes READY holds a lock (flock) on a file made for it beside READY (WRITER),
taken by memidx before git starts and inherited by it, which goes with the last process that
holds it; a lock left is removed once no process holds WRITER's: memidx's own name, its
writer gone. A pid written once git started named no writer when memidx was killed in that
instant (the lock stayed for good, each move after it on the slow path), and a pid given
again since had to be judged by the lock's time; a shell that wrote its pid and exec'd git
cost a process more at each git (x1.8). Where there is no flock (Windows, which has no
prepare), a lock stays. git's own index.lock is never looked at here."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

READY = "memidx-ready-index"  # in the git folder: the index brought to the new commit
WRITER = f"{READY}.git"  # and the file the git started on it holds a lock on (its pid in it)
LOCK = f"{READY}.lock"  # and the lock git makes as it writes it


def written(root: Path, git_dir: Path, env: Mapping[str, str], args: Sequence[str]) -> int:
    """Run `git <args>` (on READY: `env`'s GIT_INDEX_FILE) to its end, holding WRITER's lock
    from before it starts (inherited: a memidx killed meanwhile leaves it to git); its exit
    status. A new WRITER each time: a process a git started (an fsmonitor daemon) keeps the
    one it inherited, which would hold every later git's lock for good."""
    from memidx.children import start_holding
    from memidx.portable import lock_open

    writer = git_dir / WRITER
    writer.unlink(missing_ok=True)
    held = os.open(writer, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with contextlib.suppress(OSError):  # no flock here (ENOLCK): a lock left stays
            lock_open(held, 0)  # a file made now: none holds it
        return start_holding(["git", *args], root, env, held)
    finally:
        os.close(held)


def stale_lock_gone(git_dir: Path, root: Path | None = None) -> bool:
    """Whether no READY lock is there, once one whose git is gone (no process holds WRITER's
    lock) was removed; WRITER removed too once no lock is left (kept while its lock is: it
    is what judges it). A lock with no WRITER beside it (an older memidx's, which wrote none)
    is judged as git's own locks are (lock_holders.left_behind: no process holds it, no git
    runs in the clone at `root`): it stayed for good, each move after it on the slow path."""
    lock, writer = git_dir / LOCK, git_dir / WRITER
    try:
        if lock.exists():
            if not (_writer_gone(writer) or _unheld(lock, writer, root)):
                return not lock.exists()  # its git still runs, or not known: it stays
            lock.unlink(missing_ok=True)  # (no git starts on READY meanwhile: commit.lock)
        writer.unlink(missing_ok=True)
    except OSError:
        return not lock.exists()
    return True


def _unheld(lock: Path, writer: Path, root: Path | None) -> bool:
    """Whether `lock`, with no `writer` beside it, is left behind (see stale_lock_gone)."""
    from memidx.git.lock_holders import left_behind

    return root is not None and not writer.exists() and left_behind(lock, root)


def _writer_gone(writer: Path) -> bool:
    """Whether no process holds the lock on `writer` (False when there is none to look at:
    not known, or no flock on this system)."""
    import sys

    from memidx.portable import OPEN_AS_IS, lock_open

    if sys.platform == "win32":  # pragma: no cover - no prepare there (no shell), no flock
        return False
    try:
        looked = os.open(writer, OPEN_AS_IS | os.O_WRONLY)  # NFS: flock's LOCK_EX needs it
    except OSError:
        return False
    try:
        return lock_open(looked, 0)  # taken: none holds it (let go as it is closed)
    except OSError:  # no flock on this file system: not known
        return False
    finally:
        os.close(looked)
