"""The recall servers (`memidx -C MEMORY agent serve`) that agents' hooks start in the background
for a test's memory (memidx/agents/recall_client.py, start): detached, in a session of their
own, they are no child of the test and outlived it, and the suite, by their idle time. Found
by their command line (Linux's /proc), else by the `recall.pid` each writes in its memory."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

SERVE = ["agent", "serve"]
PID_FILE = Path(".memidx") / "agents" / "recall.pid"
STOP_WAIT = 10.0  # seconds: a server stopping answers the hooks it acknowledged, 5 s at most


def servers_under(folder: Path) -> dict[int, Path]:
    """The running recall servers of memories in `folder`: pid -> memory."""
    folder = folder.resolve()
    found = _by_command_line() if PROC.is_dir() else _by_pid_file(folder)
    return {pid: memory for pid, memory in found.items() if memory.is_relative_to(folder)}


def stop_servers_under(folder: Path) -> dict[int, Path]:
    """Stop the recall servers of memories in `folder` (SIGTERM, then SIGKILL after STOP_WAIT
    s); those that were running: pid -> memory."""
    found = servers_under(folder)
    for pid in found:
        _signal(pid, signal.SIGTERM)
    end = time.monotonic() + STOP_WAIT
    while (left := [pid for pid in found if _running(pid)]) and time.monotonic() < end:
        time.sleep(0.02)
    for pid in left:
        _signal(pid, signal.SIGKILL)
    return found


PROC = Path("/proc")


def _by_command_line() -> dict[int, Path]:
    found: dict[int, Path] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (memory := _served(int(entry.name))) is not None:
            found[int(entry.name)] = memory
    return found


def _served(pid: int) -> Path | None:
    """The memory the recall server `pid` serves, by its command line; None for any other
    process, or one gone."""
    try:
        argv = (PROC / str(pid) / "cmdline").read_bytes().split(b"\0")[:-1]
    except OSError:
        return None
    words = [os.fsdecode(word) for word in argv]
    if words[-2:] != SERVE or "-C" not in words[:-2]:
        return None
    return Path(words[words.index("-C") + 1]).resolve()


def _by_pid_file(folder: Path) -> dict[int, Path]:
    """Without /proc: the servers the pid files of memories in `folder` name, running."""
    found: dict[int, Path] = {}
    for top, folders, _ in os.walk(folder):
        if ".git" in folders:
            folders.remove(".git")
        pid = Path(top) / PID_FILE
        text = pid.read_text(encoding="ascii", errors="replace").strip() if pid.is_file() else ""
        if text.isdigit() and _running(int(text)):
            found[int(text)] = Path(top).resolve()
    return found


def _running(pid: int) -> bool:
    if PROC.is_dir():
        return _served(pid) is not None
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _signal(pid: int, number: int) -> None:
    with contextlib.suppress(OSError):  # gone meanwhile
        os.kill(pid, number)
