"""The temporary name a server's Unix socket is bound under before it is renamed in place
(memidx/mcp/daemon.py, memidx/agents/recall_server.py): `<pid>.tmp` beside the socket, so the
socket appears only once the server listens. A server killed between the bind and the rename
leaves its temporary socket; the next server to start in that folder removes those of pids
that no longer run."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from memidx.paths import file_identity
from memidx.portable import process_alive

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket

STARTING = re.compile(r"([0-9]{1,10})\.tmp")


def starting_name(path: Path) -> Path:
    """This process's temporary name for the socket `path` (never longer than its own)."""
    return path.with_name(f"{os.getpid()}.tmp")


def clear_starting(folder: Path) -> list[Path]:
    """Remove the temporary sockets in `folder` that servers no longer running left: only
    sockets named `<pid>.tmp` of a pid that is gone (this process's own, left by a killed
    server the pid was given to before, too); any other file stays. Returns those removed."""
    try:
        paths = list(folder.iterdir())
    except OSError:
        return []
    gone: list[Path] = []
    for path in paths:
        found = STARTING.fullmatch(path.name)
        if found is None:
            continue
        pid = int(found.group(1))
        try:
            if not stat.S_ISSOCK(path.lstat().st_mode):
                continue  # not a socket: never memidx's
            if pid != os.getpid() and process_alive(pid):
                continue  # a server starting right now
            path.unlink()
        except OSError:
            continue  # gone meanwhile, or not ours to remove: the next start tries again
        gone.append(path)
    return gone


def unlink_own(path: Path, bound: tuple[int, int] | None) -> None:
    """Remove the socket `path` if it is the one a server bound (`bound`, its file_identity):
    never a later server's, after `.memidx` was deleted and another started."""
    if file_identity(path) == bound:
        path.unlink(missing_ok=True)


def peer_pid(conn: socket.socket) -> int | None:
    """The process at the other end of a connected Unix socket (a server's: the one that
    listens on it), where the system tells (Linux's SO_PEERCRED); else None."""
    import socket
    import struct

    option = getattr(socket, "SO_PEERCRED", None)  # Linux only: elsewhere none is proven
    try:
        found = conn.getsockopt(socket.SOL_SOCKET, option, 12) if option is not None else None
    except OSError:  # not connected
        return None
    pid = struct.unpack("3i", found)[0] if found else 0
    return int(pid) if pid > 0 else None


def runtime_dir() -> Path:
    """Where this user's sockets go when the memory's folder makes their path too long:
    `$XDG_RUNTIME_DIR/memidx`, else the temporary folder's `memidx-<uid>` (see private_dir)."""
    import tempfile

    from memidx.portable import user_id

    given = os.environ.get("XDG_RUNTIME_DIR", "")
    if given and Path(given).is_dir():
        return Path(given) / "memidx"
    return Path(tempfile.gettempdir()) / f"memidx-{user_id()}"
