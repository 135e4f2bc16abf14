"""Replacing a hung shared MCP server. One that takes a front's connection and never greets it
(stopped by SIGSTOP, or hung) keeps its lock, so no other server starts, and every session
waited for it. Its event loop greets each connection within milliseconds however long a
tool call runs (tools run on threads), so a greeting missed for shared.GREET_WAIT seconds says
the process itself is not running. The first front that finds it so marks it suspect (the
socket's `.suspect`, naming its pid and when, on time.monotonic()); a front that finds it so
again SUSPECT_AFTER to SUSPECT_FOR seconds later ends it, only once it is proven this socket's
server: the process listening on the socket (the kernel says which) is the one
`mcp-server.json` names for this socket, and the socket's lock is held. Its lock then goes
with it, and the front starts a new server: never two that serve one socket. A greeting on
a connection begun after the mark was made clears it (a stall of the machine made it), and the
next server to start removes it, so none is read in another boot."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path

from memidx.config import Config
from memidx.portable import OPEN_AS_IS
from memidx.suspects import mark_or_end

SUSPECT_AFTER = 1.0  # seconds between two findings that end a server
SUSPECT_FOR = 120.0  # seconds a mark counts: an older one is a first finding again
GONE_WAIT = 1.0  # seconds for an ended server's lock to go before the front starts another
MAX_MARK = 128  # bytes read of a mark: a pid and a time


def suspect_mark(path: Path) -> Path:
    """The mark of the server on socket `path` found not greeting."""
    return path.with_suffix(".suspect")


def found_hung(config: Config, path: Path, pid: int | None) -> bool:
    """Mark the server `pid` (listening on `path`, which took a connection and did not greet
    it) suspect, or end it when it was found so SUSPECT_AFTER s before and is provably this
    socket's server; True when it was ended (its lock let go, or GONE_WAIT s past)."""
    if pid is None or not _recorded(config, path, pid) or not _lock_held(path):
        return False  # not the server mcp-server.json names while holding its lock
    mark = suspect_mark(path)
    named, made = _marked(mark)
    age = time.monotonic() - made if named == pid and made is not None else None
    text = f"{pid}\n{time.monotonic()!r}\n"
    return mark_or_end(
        mark, pid, age, text, after=SUSPECT_AFTER, lasts=SUSPECT_FOR,
        held=lambda: _lock_held(path), gone_wait=GONE_WAIT, clock=time,
    )  # fmt: skip


def suspect_since(path: Path) -> float | None:
    """When the server on `path` was marked suspect (time.monotonic()), None when it is not."""
    return _marked(suspect_mark(path))[1]


def greeted(path: Path, began: float) -> None:
    """Forget the mark when the server greeted a connection begun at `began`, after the mark
    was made: it ran since. A mark made after the connection began is kept."""
    mark = suspect_mark(path)
    made = _marked(mark)[1]
    if made is not None and made < began:
        with contextlib.suppress(OSError):
            mark.unlink()


def _recorded(config: Config, path: Path, pid: int) -> bool:
    from memidx.memory.mcp_record import shared_server

    record = shared_server(config)
    return record is not None and record.pid == pid and record.socket == str(path)


def _lock_held(path: Path, *, unknown: bool = False) -> bool:
    """Whether a server holds the socket's lock; `unknown` when the lock cannot be looked at."""
    from memidx.mcp.shared import lock_for
    from memidx.portable import file_lock

    try:
        with file_lock(lock_for(path), wait=False) as free:
            return not free
    except OSError:
        return unknown


def _marked(mark: Path) -> tuple[int | None, float | None]:
    """The pid a mark names and when it was made; (None, None) when there is none to read."""
    try:
        fd = os.open(mark, OPEN_AS_IS)
    except OSError:
        return None, None
    try:
        lines = os.read(fd, MAX_MARK).decode("ascii", "replace").split()
        return int(lines[0]), float(lines[1])
    except (OSError, ValueError, IndexError):
        return None, None
    finally:
        os.close(fd)


def look_again(config: Config, path: Path, conn: socket.socket) -> str:
    """What a front does with `conn`, which the server on `path` took and did not greet
    (closed here): "none" once that server was ended, here or by another front (start
    another, or join the one that front starts); "again" once
    SUSPECT_AFTER s have passed since it was first found so (look again); shared.UNGREETED
    when it cannot be ended (not provably this socket's server): serve the session here."""
    from memidx.mcp.shared import UNGREETED
    from memidx.sockets import peer_pid

    with conn:
        pid = peer_pid(conn)
    if found_hung(config, path, pid) or not _lock_held(path, unknown=True):
        return "none"  # ended here, or by another front meanwhile: the next one is started
    since = suspect_since(path)
    if since is None:
        return UNGREETED
    time.sleep(max(0.0, min(SUSPECT_AFTER, since + SUSPECT_AFTER - time.monotonic())))
    return "again"


def alive(config: Config, path: Path) -> bool:
    """Whether the server on `path`, silent on a session's request, may still answer it: it
    greets a new connection (busy with a long call), or is not found hung twice (the first
    finding marks it). False once it was ended."""
    from memidx.mcp.shared import UNGREETED, knock
    from memidx.sockets import peer_pid

    conn, why = knock(path)
    if conn is None:
        return True  # gone or going: the session's own connection says so
    with conn:
        if why != UNGREETED:
            return True
        pid = peer_pid(conn)
    return not found_hung(config, path, pid)
