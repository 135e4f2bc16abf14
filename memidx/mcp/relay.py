"""A `memidx mcp` front's session with the shared server: bytes copied between its stdio and the
socket. While a request waits QUIET s with no word from the server, the front looks at the
server on a new connection: greeted, it is busy with a long call (alive: waited for, never
ended); held without a greeting, it is stopped or hung (memidx/mcp/hung.py ends it on a second
finding). A server ended so, or dead, ends the session: each request still waiting is answered
with an error that says so, and the client's next session starts a new server."""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.mcp.pending import Pending

CHUNK = 65536
QUIET = 5.0  # seconds a request waits on a silent server before the front looks at it
# The error each request waiting then gets (JSON-RPC's "internal error")
ENDED = -32603
ENDED_MESSAGE = (
    "memidx: error: the shared MCP server ended this session before answering (stopped "
    "answering, or died): start a new session, it starts a new server"
)


def relay(config: Config, path: Path, conn: socket.socket, stdin: int, stdout: int) -> bool | None:
    """pump() with looks at the server on `path` while a request waits on it: True when stdin
    ended the session, False when the server did, None when the server was found hung."""
    from memidx.mcp.hung import alive

    found: list[bool] = []

    def looked() -> bool:
        found.append(alive(config, path))
        return found[-1]

    ended = pump(conn, stdin, stdout, looked)
    return None if not ended and found and not found[-1] else ended


def pump(
    conn: socket.socket, stdin: int, stdout: int, alive: Callable[[], bool] = lambda: True
) -> bool:
    """Copy stdin to the socket and the socket to stdout until the server closes; stdin's end
    is passed on as the end of the socket's writing half, so the server ends the session.
    True when the session ended because stdin did, False when the server ended it first, or
    left a request unanswered (it died: after stdin's end too, as a client done writing still
    reads the errors of its calls), or `alive`, asked after each QUIET s a request waited
    without a word from it, said no."""
    ended = threading.Event()
    hung = False
    pending = Pending()
    lock = threading.Lock()  # the pending ids, read and written on both threads

    def upstream() -> None:
        with contextlib.suppress(OSError):
            while chunk := read_chunk(stdin):
                with lock:
                    pending.sent(chunk)
                conn.sendall(chunk)
            with lock:
                pending.input_ended()
            ended.set()  # stdin's end; not a send the dead server refused (the server ended it)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)

    threading.Thread(target=upstream, name="memidx-mcp-stdin", daemon=True).start()
    conn.settimeout(None)  # no timeout on the socket: a slow reader timed out the stdin's sends
    with contextlib.suppress(OSError):
        while True:
            if not select.select([conn], [], [], QUIET)[0]:
                with lock:
                    waiting = bool(pending)
                if not waiting or alive():
                    continue
                hung = True
                break
            chunk = conn.recv(CHUNK)
            if not chunk:
                break
            with lock:
                pending.answered(chunk)
            _write(stdout, chunk)
    with lock:
        left = pending.left()
        unanswered = pending.unanswered()  # less those a line too long to read may answer
    if ended.is_set() and not hung and not unanswered:  # a server ending a session answers
        return True  # every request first: one left unanswered, it died
    with lock, contextlib.suppress(OSError):
        _answer_left(stdout, left, pending.mid_line())
    return False


def _answer_left(stdout: int, ids: list[str | int], mid_line: bool) -> None:
    """An error for each request left unanswered, on lines of their own (after the end of a
    line the server left half written: the client reads it as no message)."""
    error = {"code": ENDED, "message": ENDED_MESSAGE}
    lines = [json.dumps({"jsonrpc": "2.0", "id": one, "error": error}) for one in ids]
    if lines:
        _write(stdout, ("\n" * mid_line + "\n".join(lines) + "\n").encode("utf-8"))


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_chunk(fd: int) -> bytes:
    """The next bytes of `fd`, waiting for them even when the client made it non-blocking."""
    while True:
        try:
            return os.read(fd, CHUNK)
        except BlockingIOError:
            select.select([fd], [], [], 1.0)
