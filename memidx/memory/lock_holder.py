"""Who holds remember.lock (Linux /proc; unknown elsewhere): a remember in line named "other
memidx remembers" whatever held it (a `memidx sync`, a git hook, the finisher, a process
stopped with Ctrl-Z)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

FINISHER = "memidx.memory.pending_finisher"  # the finisher's module, run with `-m`


def flock_holder(lock: Path) -> int | None:
    """The pid of the process that holds `lock` (an flock), None when none is seen."""
    try:
        found = lock.stat()
        held = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return holder_in(held, found.st_dev, found.st_ino, lambda pid: _opened(pid, found))


def holder_in(held: str, dev: int, ino: int, opened: Callable[[int], bool]) -> int | None:
    """The pid /proc/locks' text `held` names for the flock on file `ino` of device `dev`
    (stat's): its line names the device as `major:minor` of the file system's own (the
    kernel's i_sb->s_dev), which is stat's on ext4, xfs, tmpfs and overlayfs but not on a btrfs
    subvolume (stat gives each its own device): a line of the same inode on another device
    counts when `opened(pid)` says that process has this very file open."""
    where = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    others: list[int] = []
    for fields in (line.split() for line in held.splitlines()):
        # `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`; a waiter's line has `->`
        if len(fields) <= 5 or fields[1] != "FLOCK" or not fields[4].isdigit():
            continue
        if fields[5] == where:
            return int(fields[4])
        if fields[5].rpartition(":")[2] == str(ino):
            others.append(int(fields[4]))
    return next((pid for pid in others if opened(pid)), None)


def _opened(pid: int, found: os.stat_result) -> bool:
    """Whether process `pid` has the file `found` (stat's) open, by /proc's fd links."""
    try:
        fds = list(os.scandir(f"/proc/{pid}/fd"))
    except OSError:  # gone, or another user's
        return False
    for fd in fds:
        try:
            seen = fd.stat()  # the file the link names
        except OSError:
            continue
        if (seen.st_dev, seen.st_ino) == (found.st_dev, found.st_ino):
            return True
    return False


def stopped_holder(lock: Path) -> int | None:
    """The pid of the process that holds `lock` when it is stopped (Ctrl-Z, SIGSTOP): no queue
    moves behind it until it is resumed (Linux /proc; None elsewhere, or when none is)."""
    pid = flock_holder(lock)
    return None if pid is None else _stopped(pid)


def _stopped(pid: int) -> int | None:
    """`pid` when its process is stopped (state T or t), else None."""
    from memidx.process_start import process_state

    return pid if process_state(pid) in ("T", "t") else None


def holder_said(lock: Path) -> str | None:
    """Who holds `lock`, in a few words: `memidx sync (pid 4242)`, `memidx's post-commit git
    hook (pid 4242)`, `the process memidx left to commit pending notes (pid 4242)`, or the
    program's name; never the arguments beyond memidx's command. None when none is seen."""
    pid = flock_holder(lock)
    if pid is None:
        return None
    try:
        argv = [
            arg.decode("utf-8", "replace")
            for arg in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        ]
        name = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return f"the process {pid}"
    return process_named(argv, name, pid)


def process_named(argv: list[str], name: str, pid: int) -> str:
    """A process in a few words from its arguments and its name (/proc's cmdline and comm)."""
    if FINISHER in argv:
        return f"the process memidx left to commit pending notes once git lets go (pid {pid})"
    command = _memidx_command(argv)
    if command is None:
        return f"{name or 'the process'} (pid {pid})"
    if command[:1] == ["hook"]:
        return f"memidx's {' '.join(command[1:2]) or 'git'} git hook (pid {pid})"
    if command[:1] == ["mcp"]:
        return f"memidx's MCP server (pid {pid})"
    return f"memidx {command[0]} (pid {pid})" if command else f"memidx (pid {pid})"


def _memidx_command(argv: list[str]) -> list[str] | None:
    """memidx's command and its first argument (`remember`, `hook post-commit`) when `argv`
    runs memidx (`memidx ...`, `python -m memidx ...`), else None; `-C dir` is skipped."""
    at = next((n for n, word in enumerate(argv[:4]) if Path(word).name == "memidx"), None)
    if at is None:
        return None
    words: list[str] = []
    skip = False
    for word in argv[at + 1 :]:
        if skip:
            skip = False
        elif word == "-C":
            skip = True
        elif not word.startswith("-") and word:
            words.append(word)
            if len(words) == 2:
                break
    return words
