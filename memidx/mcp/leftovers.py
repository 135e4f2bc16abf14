"""The sockets shared MCP servers that were killed (SIGKILL, a crash, the out-of-memory killer)
left in the socket folder. A server removes its own as it stops, and the next server of its
configuration and code takes its name over; a socket of another stamp (a server of the code
before an upgrade, of another configuration) stayed for ever. The next server to start removes
each one it can prove dead: named as memidx names them, a socket, its lock held by no server
(every server holds its own for its whole life, and renames its socket into place holding it)
and refusing a connection. A lock stayed for ever too, one per upgrade or change of
configuration, its server gone: the next server removes each lock named as memidx names them
that no process holds and whose socket is gone, holding it as it does (a server that opened it
meanwhile takes the new one memidx.portable.file_lock makes, never the one removed)."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import stat
from pathlib import Path

from memidx.mcp.shared import lock_for
from memidx.portable import file_lock

SERVED = re.compile(r"mcp-[0-9a-f]{16}\.sock")  # memidx/mcp/shared.py's socket_for
LOCKED = re.compile(r"mcp-[0-9a-f]{16}\.lock")  # and its lock_for


def clear_stale(folder: Path) -> list[Path]:
    """Remove the sockets of `folder` that no server serves, then the locks no server holds
    nor serves under; returns those removed."""
    try:
        paths = sorted(folder.iterdir())
    except OSError:
        return []
    sockets = [path for path in paths if SERVED.fullmatch(path.name) and _removed(path)]
    return sockets + [path for path in paths if LOCKED.fullmatch(path.name) and _unheld(path)]


def _removed(path: Path) -> bool:
    """Whether `path` was a dead server's socket, now removed."""
    lock = lock_for(path)
    try:
        if not stat.S_ISSOCK(path.lstat().st_mode) or not lock.is_file():
            return False  # not a socket, or no lock to prove its server gone: never memidx's
        with file_lock(lock, wait=False) as free:
            # Held, no server of that stamp can start meanwhile (it waits for the lock, or
            # leaves), so the socket cannot be renamed into place between the look and the unlink.
            if not free or _accepting(path):
                return False
            path.unlink()
    except OSError:
        return False  # gone meanwhile, or not this user's to remove: the next start tries again
    return True


def _unheld(lock: Path) -> bool:
    """Whether `lock` was a lock no server holds and no socket goes with, now removed."""
    try:
        if not stat.S_ISREG(lock.lstat().st_mode):
            return False  # not a file: never memidx's
        with file_lock(lock, wait=False) as free:
            # Held, no server of that stamp can bind its socket meanwhile (it must hold it).
            if not free or os.path.lexists(lock.with_suffix(".sock")):
                return False  # a server's (this one's too), or its socket not proven dead
            lock.unlink()
    except OSError:
        return False  # gone meanwhile, or not this user's to remove: the next start tries again
    return True


def _accepting(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        with contextlib.suppress(OSError):
            probe.connect(str(path))
            return True
    return False
