"""The recall servers (`memidx -C MEMORY agent serve`) that agents' hooks start in the background
for a test's memory (memidx/agents/recall_client.py, start): detached, in a session of their
own, they are no child of the test and outlived it, and the suite, by their idle time. Found
by their command line (Linux's /proc), else by the `recall.pid` each writes in its memory,
its process's command line (`ps`) naming that memory: nothing else is ever signalled."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

SERVE = ["agent", "serve"]
PID_FILE = Path(".memidx") / "agents" / "recall.pid"  # recall_server.server_folder, PID_NAME
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
    end, left = time.monotonic() + STOP_WAIT, found
    while (left := {pid: m for pid, m in left.items() if _running(pid, m)}) and (
        time.monotonic() < end
    ):
        time.sleep(0.02)
    for pid in left:
        _signal(pid, signal.SIGKILL)
    return found


def stop_servers_for(folder: Path) -> dict[int, Path]:
    """stop_servers_under(folder), but only where a server can have been started for a memory
    in it: after every test that has a tmp_path (thousands), most of which start none, the
    walk of its folder costs less than reading every process's command line (~2.5 ms idle)."""
    return stop_servers_under(folder) if may_serve(folder) else {}


def may_serve(folder: Path) -> bool:
    """Whether a memory in `folder` has the state folder a recall server keeps
    (`.memidx/agents`, recall_server.server_folder): the hook that starts one creates it (the
    server's log) before starting it (recall_client.start), and the server itself takes its
    lock there. A server whose memory was removed since is not seen: pytest_sessionfinish's
    check stops it and fails the run. .git folders are not walked (as _by_pid_file)."""
    for top, folders, _ in os.walk(folder.resolve()):
        if STATE in folders and Path(top, STATE, "agents").is_dir():
            return True
        if ".git" in folders:
            folders.remove(".git")
    return False


STATE = ".memidx"
PROC = Path("/proc")


def _by_command_line() -> dict[int, Path]:
    """Every process's command line read as bytes with os calls, only a server's decoded: this
    runs after every test that has a tmp_path (thousands) over every process of the machine,
    and pathlib's reads and decoding every word cost 4.5 ms a call of 160 processes (now 1.3)."""
    found: dict[int, Path] = {}
    for entry in os.scandir(PROC):
        if entry.name.isdigit() and (memory := _served(int(entry.name))) is not None:
            found[int(entry.name)] = memory
    return found


SERVE_END = b"\0" + b"\0".join(word.encode() for word in SERVE) + b"\0"


def _command_line(pid: int) -> bytes:
    """/proc/PID/cmdline, whole; OSError when the process is gone or not readable."""
    fd = os.open(f"{PROC}/{pid}/cmdline", os.O_RDONLY)
    try:
        parts: list[bytes] = []
        while part := os.read(fd, 65536):
            parts.append(part)
        return b"".join(parts)
    finally:
        os.close(fd)


def _served(pid: int) -> Path | None:
    """The memory the recall server `pid` serves, by its command line; None for any other
    process, or one gone. A relative `-C` is the server's own working folder's (never this
    process's: a user's `memidx -C . agent serve` read as in a test's folder was stopped)."""
    try:
        read = _command_line(pid)
    except OSError:
        return None
    if not read.endswith(SERVE_END):
        return None
    words = [os.fsdecode(word) for word in read.split(b"\0")[:-1]]
    if words[-2:] != SERVE or "-C" not in words[:-2]:
        return None
    given = Path(words[words.index("-C") + 1])
    if not given.is_absolute():
        try:
            given = (PROC / str(pid) / "cwd").readlink() / given
        except OSError:  # gone, or another user's: not known, so not ours
            return None
    return given.resolve()


def _by_pid_file(folder: Path) -> dict[int, Path]:
    """Without /proc: the servers the pid files of memories in `folder` name, running, and
    serving that memory by their command line (`ps`): a killed server's pid file named
    whatever process took its pid since, which was stopped."""
    found: dict[int, Path] = {}
    for top, folders, _ in os.walk(folder):
        if ".git" in folders:
            folders.remove(".git")
        pid = Path(top) / PID_FILE
        text = pid.read_text(encoding="ascii", errors="replace").strip() if pid.is_file() else ""
        if text.isdigit() and _running(int(text), memory := Path(top).resolve()):
            found[int(text)] = memory
    return found


def _running(pid: int, memory: Path) -> bool:
    """Whether `pid` still runs as the recall server of `memory`."""
    if PROC.is_dir():
        return _served(pid) == memory
    try:
        shown = subprocess.run(
            ["ps", "-ww", "-o", "args=", "-p", str(pid)],  # -ww: not cut at 80 columns
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return False
    return shown.endswith(f" -C {memory} {' '.join(SERVE)}")


def _signal(pid: int, number: int) -> None:
    with contextlib.suppress(OSError):  # gone meanwhile
        os.kill(pid, number)
