"""Who holds remember.lock (Linux /proc; unknown elsewhere): a remember in line named "other
memidx remembers" whatever held it (a `memidx sync`, a git hook, the finisher, a process
stopped with Ctrl-Z)."""

from __future__ import annotations

import os
from pathlib import Path

FINISHER = "memidx.memory.pending_finisher"  # the finisher's module, run with `-m`


def flock_holder(lock: Path) -> int | None:
    """The pid of the process that holds `lock` (an flock), None when none is seen."""
    try:
        found = lock.stat()
        held = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    where = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
    for fields in (line.split() for line in held.splitlines()):
        # `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`; a waiter's line has `->`
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == where:
            return int(fields[4]) if fields[4].isdigit() else None
    return None


def stopped_holder(lock: Path) -> int | None:
    """The pid of the process that holds `lock` when it is stopped (Ctrl-Z, SIGSTOP): no queue
    moves behind it until it is resumed (Linux /proc; None elsewhere, or when none is)."""
    pid = flock_holder(lock)
    return None if pid is None else _stopped(pid)


def _stopped(pid: int) -> int | None:
    """`pid` when its process is stopped (state T or t), else None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    state = stat.rpartition(")")[2].split()[:1]
    return pid if state in (["T"], ["t"]) else None


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
