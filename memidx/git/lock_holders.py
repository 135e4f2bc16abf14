"""Whether a git's index.lock was left behind by a git that was killed: no process holds it
open and no git runs in its repository (Linux /proc; elsewhere never: unknown)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memidx.git.invocation import command_at, command_of


def left_behind(lock: Path, work_tree: Path, also: Sequence[Path] = ()) -> bool:
    """The same lock file before and after a look at every process, and nothing holds it (a
    git that ends during the look removes its lock: that one was not left behind).
    `work_tree` is the clone's: a git folder elsewhere (a submodule's `.git/modules/<name>`,
    `git init --separate-git-dir`) names no work tree a git could be running in. `also`:
    other work trees a git holding it may run in (a branch's lock: the clone's linked ones)."""
    from memidx.git.move_script import held_by_memidx

    try:
        before = lock.stat()
    except FileNotFoundError:
        return False
    if held_by_memidx(lock) or not _held_by_nobody(lock, work_tree, also):
        return False
    try:
        after = lock.stat()
    except FileNotFoundError:
        return False
    return (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def _held_by_nobody(lock: Path, work_tree: Path, also: Sequence[Path] = ()) -> bool:
    """True only when nothing can be holding `lock`: no process has it open, and no git
    process runs in this repository (git keeps index.lock while its hooks run, with the file
    closed). Linux /proc; elsewhere never True: unknown."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return False
    target = str(lock.resolve())
    places = [work_tree.resolve(), *(p.resolve() for p in also), *_places(lock.resolve().parent)]
    for pid_dir in proc.glob("[0-9]*"):
        if _holds(pid_dir, target) or any(_git_in(pid_dir, place, True) for place in places):
            return False
    return True


def holder(lock: Path, work_tree: Path, also: Sequence[Path] = ()) -> str | None:
    """Who holds `lock` now, in a few words (`git commit (pid 4242)`): a process that has it
    open, else a git (not a reader) running in this repository; None when none is seen (git
    keeps a ref's lock closed while it waits; no /proc elsewhere)."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return None
    target = str(lock.resolve())
    places = [work_tree.resolve(), *(p.resolve() for p in also), *_places(lock.resolve().parent)]
    pids = sorted(proc.glob("[0-9]*"), key=lambda pid_dir: int(pid_dir.name))
    found = next((pid_dir for pid_dir in pids if _holds(pid_dir, target)), None)
    found = found or next(
        (pid_dir for pid_dir in pids if any(_git_in(pid_dir, place) for place in places)), None
    )
    return None if found is None else _named(found)


def _named(pid_dir: Path) -> str:
    """`git <command> (pid N)`, or `<name> (pid N)`: never the arguments (a commit message)."""
    try:
        name = (pid_dir / "comm").read_text().strip()
        argv = (pid_dir / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"pid {pid_dir.name}"
    words = [arg.decode("utf-8", "replace") for arg in argv[1:]]
    at = command_at(words) if name == "git" else None
    command = "" if at is None else words[at]  # as typed: its alias not read for a name
    return f"{name} {command} (pid {pid_dir.name})" if command else f"{name} (pid {pid_dir.name})"


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


# git commands that never lock the index, which a person or an editor keeps running for long
# (`git log` in its pager, `git cat-file --batch`): one in the clone had a killed git's lock
# called a live git's, and remember said the note is committed "once that git command ends"
READERS = frozenset({"log", "show", "cat-file", "blame", "ls-tree", "rev-list", "shortlog"})


def _git_in(pid_dir: Path, repository: Path, unseen: bool = False) -> bool:
    """A running git, not a reader, whose working folder is in this repository (or its .git);
    `unseen`: the answer for a git whose folder this user may not read (another user's: its
    lock was called a killed git's, with the `rm` of a live git's lock)."""
    try:
        if (pid_dir / "comm").read_text().strip() != "git":
            return False
        cwd = (pid_dir / "cwd").readlink()
        argv = (pid_dir / "cmdline").read_bytes().split(b"\0")
    except PermissionError:
        return unseen
    except OSError:  # ended, or a zombie: it holds nothing
        return False
    inside = cwd == repository or repository in cwd.parents
    return inside and command_of(argv, repository) not in READERS  # `git lg`: its alias
