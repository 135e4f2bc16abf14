"""The git that writes memidx's copy of the index made before a move (memidx.git.index_swap's
READY), and the `.lock` such a git left when it was killed.

git writes an index by making `<index>.lock`, writing it and renaming it over the index: a git
killed in between (SIGKILL, the process group killed with memidx, a machine that went down)
left `memidx-ready-index.lock`, on which the git of each prepare after it failed ("File
exists"), so memidx held git's index.lock for its whole follow at each move from then on. So
the pid of the git that writes READY is written beside it (WRITER) as it starts, and a lock
left is removed once that git is judged gone on the lock's own time (a pid given again since
does not keep it): memidx's own name, its writer known and dead. A lock whose writer is not
known stays (memidx and its git killed in the instant between the git's start and that
write); git's own index.lock is never looked at here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

READY = "memidx-ready-index"  # in the git folder: the index brought to the new commit
WRITER = f"{READY}.git"  # and the pid of the last git started on it
LOCK = f"{READY}.lock"  # and the lock git makes as it writes it


def written(root: Path, git_dir: Path, env: Mapping[str, str], args: Sequence[str]) -> int:
    """Run `git <args>` (on READY: `env`'s GIT_INDEX_FILE) to its end, its pid written in
    WRITER as it starts; its exit status."""
    import contextlib
    import subprocess

    quiet = subprocess.DEVNULL
    git = subprocess.Popen(["git", *args], cwd=root, env=env, stdout=quiet, stderr=quiet)
    with contextlib.suppress(OSError):  # none: a lock it leaves stays (no pid to judge it by)
        (git_dir / WRITER).write_text(str(git.pid))
    return git.wait()


def stale_lock_gone(git_dir: Path) -> bool:
    """Whether no READY lock is there, once one whose git (WRITER) is gone was removed; WRITER
    removed too once no lock is left (kept while its lock is: it is what judges it)."""
    from memidx.git.judged_unlink import unlink_if_gone

    lock, writer = git_dir / LOCK, git_dir / WRITER
    try:
        if lock.exists():
            said = writer.read_text().strip() if writer.exists() else ""
            if not (said.isdigit() and unlink_if_gone(lock, int(said))):
                return not lock.exists()  # its git still runs, or not known: it stays
        writer.unlink(missing_ok=True)
    except OSError:
        return not lock.exists()
    return True
