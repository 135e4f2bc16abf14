"""The sockets shared MCP servers that were killed (SIGKILL, a crash, the out-of-memory killer)
left in the socket folder. A server removes its own as it stops, and the next server of its
configuration and code takes its name over; a socket of another stamp (a server of the code
before an upgrade, of another configuration) stayed for ever. The next server to start removes
each one it can prove dead: named as memidx names them, a socket, its lock held by no server
(every server holds its own for its whole life, and renames its socket into place holding it)
and refusing a connection."""

from __future__ import annotations

import contextlib
import re
import socket
import stat
from pathlib import Path

from memidx.mcp.shared import lock_for
from memidx.portable import file_lock

SERVED = re.compile(r"mcp-[0-9a-f]{16}\.sock")  # memidx/mcp/shared.py's socket_for


def clear_stale(folder: Path) -> list[Path]:
    """Remove the sockets of `folder` that no server serves; returns those removed."""
    try:
        paths = sorted(folder.iterdir())
    except OSError:
        return []
    return [path for path in paths if SERVED.fullmatch(path.name) and _removed(path)]


def _removed(path: Path) -> bool:
    """Whether `path` was a dead server's socket, now removed."""
    lock = lock_for(path)
    try:
        if not stat.S_ISSOCK(path.lstat().st_mode) or not lock.is_file():
            return False  # not a socket, or no lock to prove its server gone: never memidx's
        with file_lock(lock, wait=False) as free:
            # Held, no server of that stamp can start meanwhile (it tries the lock once and
            # leaves), so the socket cannot be renamed into place between the look and the unlink.
            if not free or _accepting(path):
                return False
            path.unlink()
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
