"""Whether the memory's shared MCP server runs, for `memidx status`: read from the record the
server keeps while it serves (`.memidx/mcp-server.json`, written by memidx/mcp/daemon.py) and
checked against the system (its pid alive, its socket there). Reads only; never connects."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path
from typing import cast

from memidx.config import Config
from memidx.drafts import read_own
from memidx.frozen import Value
from memidx.portable import process_alive

MAX_RECORD = 64 * 1024  # bytes: a pid, a socket's path, counts
RECORD = "mcp-server.json"  # memidx/mcp/daemon.py's SERVER_RECORD (a test keeps them equal)


class SharedServer(Value):
    """What the record says of the shared server, and whether it runs."""

    pid: int
    socket: str
    running: bool  # the pid is alive and the socket is there
    sessions: int | None = None  # sessions in progress, as the server records them
    idle_seconds: float | None = None  # since its last session ended (None: it has sessions)

    def to_json(self) -> dict[str, object]:
        return {"pid": self.pid, "socket": self.socket, "running": self.running,
                "sessions": self.sessions, "idle_seconds": self.idle_seconds}  # fmt: skip


def shared_server(config: Config) -> SharedServer | None:
    """The shared server the record names; None when there is no readable record."""
    text = read_own(config.state_dir / RECORD, MAX_RECORD)  # as it is: a FIFO hung status
    try:
        data: object = json.loads(text or b"")
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    record = cast(dict[str, object], data)
    pid, socket = record.get("pid"), record.get("socket")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or not isinstance(socket, str):
        return None
    sessions, since = record.get("sessions"), record.get("idle_since")
    idle = None
    if isinstance(since, int | float) and not isinstance(since, bool):
        idle = max(0.0, time.time() - float(since))  # the server's wall clock, and this one's
    return SharedServer(
        pid, socket, process_alive(pid) and _is_socket(Path(socket)),
        sessions if isinstance(sessions, int) and not isinstance(sessions, bool) else None,
        idle,
    )  # fmt: skip


def _is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(path.stat().st_mode)
    except OSError:
        return False
