"""Whether a git's index.lock was left behind by a git that was killed: no process holds it
open and no git runs in its repository (Linux /proc; elsewhere never: unknown)."""

from __future__ import annotations

from pathlib import Path


def left_behind(lock: Path, work_tree: Path) -> bool:
    """The same lock file before and after a look at every process, and nothing holds it (a
    git that ends during the look removes its lock: that one was not left behind).
    `work_tree` is the clone's: a git folder elsewhere (a submodule's `.git/modules/<name>`,
    `git init --separate-git-dir`) names no work tree a git could be running in."""
    try:
        before = lock.stat()
    except FileNotFoundError:
        return False
    if not _held_by_nobody(lock, work_tree):
        return False
    try:
        after = lock.stat()
    except FileNotFoundError:
        return False
    return (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def _held_by_nobody(lock: Path, work_tree: Path) -> bool:
    """True only when nothing can be holding `lock`: no process has it open, and no git
    process runs in this repository (git keeps index.lock while its hooks run, with the file
    closed). Linux /proc; elsewhere never True: unknown."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return False
    target = str(lock.resolve())
    places = [work_tree.resolve(), *_places(lock.resolve().parent)]
    for pid_dir in proc.glob("[0-9]*"):
        if _holds(pid_dir, target) or any(_git_in(pid_dir, place) for place in places):
            return False
    return True


def _places(git_dir: Path) -> list[Path]:
    """Where a git that holds `git_dir`'s index.lock runs: its work tree (`<repo>/.git`'s
    parent; a linked work tree's, named by the `gitdir` file of `.git/worktrees/<name>`: only
    `.git/worktrees` was looked in, so a live `git commit` there running its hooks was taken
    for a killed one, whose lock `remember` and `status` said to remove)."""
    places = [git_dir.parent]
    try:
        pointer = (git_dir / "gitdir").read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return places
    if pointer:
        places.append((git_dir / pointer).resolve().parent)  # <work tree>/.git
    return places


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
