"""Whether git's index.lock was left behind by a killed git: no process holds it, and no git
process runs in the repository (Linux /proc; elsewhere never said)."""

from __future__ import annotations

from pathlib import Path


def left_behind(lock: Path) -> bool:
    """The same lock file before and after a look at every process, and nothing holds it (a
    git that ends during the look removes its lock: that one was not left behind)."""
    try:
        before = lock.stat()
    except FileNotFoundError:
        return False
    if not _held_by_nobody(lock):
        return False
    try:
        after = lock.stat()
    except FileNotFoundError:
        return False
    return (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def _held_by_nobody(lock: Path) -> bool:
    """True only when nothing can be holding `lock`: no process has it open, and no git
    process runs in this repository (git keeps index.lock while its hooks run, with the file
    closed). Linux /proc; elsewhere never True: unknown."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return False
    target = str(lock.resolve())
    repository = lock.resolve().parent.parent  # <repo>/.git/index.lock
    for pid_dir in proc.glob("[0-9]*"):
        if _holds(pid_dir, target) or _git_in(pid_dir, repository):
            return False
    return True


def _holds(pid_dir: Path, target: str) -> bool:
    try:
        links = list((pid_dir / "fd").iterdir())
    except OSError:
        return False  # another user's process, or one that just ended
    for link in links:
        try:
            if str(link.readlink()) == target:
                return True
        except OSError:
            continue
    return False


def _git_in(pid_dir: Path, repository: Path) -> bool:
    """A running git whose working folder is in this repository (or its .git)."""
    try:
        if (pid_dir / "comm").read_text().strip() != "git":
            return False
        cwd = (pid_dir / "cwd").readlink()
    except OSError:
        return False
    return cwd == repository or repository in cwd.parents
