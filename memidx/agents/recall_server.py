"""The warm recall server: one process per memory that keeps the model loaded, so a prompt hook
(a new process per prompt) answers in tens of milliseconds instead of paying ~1 s of imports
and model load. A Unix socket in the clone's state folder, or where that path is too long for
a socket, in the user's private runtime folder (nothing listens on the network);
every loop is bounded: one request per connection, a size limit, timeouts, and the server exits
after an idle hour. The hook starts it in the background when it does not answer, and asks it
(memidx/agents/recall_client.py)."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.portable_folders import held_folder, moved, unlink_in
from memidx.state_folder import ensure_folder

# A request: the prompt (MAX_PROMPT_CHARS, 6 bytes each in JSON at most) and the session's hits
# (up to session.MAX_KEYS refs); 64 KiB refused a session's 1,500th hit or a long prompt.
MAX_REQUEST = 4 * 1024 * 1024
# What a memory whose folder cannot be written (mounted read-only, shared) answers a writer:
# no server runs there, and the hook recalls in its own process, from the index it only reads.
READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
IDLE_EXIT = 3600.0  # seconds without a request before the server exits
MAX_REQUESTS = 1_000_000
PID_NAME = "recall.pid"  # the running server's pid, written by the lock's holder only
STARTED = "recall.started"  # when a hook started a server (recall_client), removed by the server
START_GRACE = 10.0  # seconds a started server has to take its lock before hooks start another
# Seconds a starting server waits for its lock: a hook's look at it (recall_client.starting,
# every 50 ms while a server starts) holds it some microseconds, and a server that met one
# went away at once, as if another ran (4 of 300 starts with 20 hooks waiting), and left the
# hooks none for START_GRACE seconds. A server that holds it keeps it: the new one goes.
LOCK_WAIT = 0.1
SOCKET_NAME = "recall.sock"
CONFIG = "config"  # the request's key for config_key()
STALE = "configuration changed"  # the answer's error when the hook's configuration differs
BACKLOG = 128  # hooks connecting at once: at 16 the 17th at once was refused
ACK = b"\x06"  # the server's first byte on each connection, at once: it is alive (recall_loop)
# Seconds a hook waits for ACK before it counts the server as wedged: 20 hooks at once, 7
# times, on the 2 cores here at a load of 7-8, were acknowledged in p50 1-3 ms, p99 18-138 ms,
# max 20-140 ms (4 runs); and the hook still has time to recall in its own process after it.
ACK_WAIT = 0.3
# A server that did not acknowledge a hook in ACK_WAIT twice, SUSPECT_AFTER s apart or more,
# is ended as wedged (recall_wedge): a server's own waits without accepting (recall_loop's
# retries of a failed accept) end well within SUSPECT_AFTER - ACK_WAIT.
SUSPECT_AFTER = 1.0
NO_ACK = "no acknowledgement"  # the answer's error when a server accepted and never acknowledged
# What the server sends instead of ACK, and the answer's error each makes: its answering thread
# has been on one prompt for recall_workers.STALLED_AFTER s (a stuck read, a deadlock), or it is
# closing (after such an answer, an upgrade, another configuration). The hook recalls in its
# own process at once, and marks nothing: the server is alive, and says so itself.
STALLED = b"\x13"
CLOSING = b"\x04"
TURNED_AWAY = {STALLED: "stalled on an answer", CLOSING: "closing"}
NO_ANSWER = "no answer"  # the error when one acknowledged, then closed or stalled (recall_loop)
# The answer's key for when (time.monotonic(), which every process of a boot shares) the server
# was last heard from: a suspect mark made before it is cleared, one made since is not
HEARD = "heard"
SUSPECT = "recall.suspect"  # the server found wedged once (recall_wedge), removed as one starts
# Seconds between a waiting hook's looks at whether the server is answering or stalled on an
# answer: a new connection, acknowledged (or turned away) at once, within ACK_WAIT
PROBE_EVERY = 0.2
MAX_SOCKET_PATH = 100  # below the 104-108 bytes a Unix socket's path may have
Fields = dict[str, object]  # a request, or an answer, as JSON


def socket_path(config: Config) -> Path | None:
    """The server's socket: `.memidx/agents/recall.sock`, or where that path is too long for a
    socket (a memory in a deep folder), one named after the memory's folder in the user's
    runtime folder, which must be private; None where there can be none."""
    local = server_folder(config) / SOCKET_NAME
    if len(str(local)) <= MAX_SOCKET_PATH:
        return local
    from memidx.portable import private_dir
    from memidx.sockets import runtime_dir

    folder = runtime_dir()
    digest = hashlib.sha256(str(config.root).encode("utf-8")).hexdigest()[:16]
    path = folder / f"recall-{digest}.sock"
    with contextlib.suppress(OSError):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if len(str(path)) > MAX_SOCKET_PATH or not private_dir(folder):
        return None  # another user's folder could hold a socket that answers for them
    return path


def server_folder(config: Config) -> Path:
    """The server's lock, pid and log, wherever its socket is."""
    return config.state_dir / "agents"


# Settings recall never reads: a hook differing only in them (one agent sets MEMIDX_FSYNC,
# another does not) is answered, or each prompt of either would restart the server.
UNREAD = frozenset({"found_by", "fsync", "hook_embed", "segment_bytes", "max_note_bytes"})


def config_key(config: Config) -> str:
    """What the server was started with that changes an answer: a hook whose configuration
    differs (`[tool.memidx]` edited, another MEMIDX_MODEL or MEMIDX_INDEX) is not answered by
    it. How the memory was found, and what only writers read (UNREAD), change nothing."""
    fields = {f: str(getattr(config, f)) for f in type(config).value_fields if f not in UNREAD}
    fields["models_dir"] = str(config.models_dir)
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def read_line(
    conn: socket.socket, data: bytearray | None = None, within: float | None = None
) -> bytes:
    """One line from `conn` (into `data`, which keeps what came when it times out), the whole
    of it within `within` seconds when given (TimeoutError after them): each read's timeout
    alone let a hook sending a byte every 0.4 s hold the reader for as long as it sent."""
    data = bytearray() if data is None else data
    end = None if within is None else time.monotonic() + within
    while len(data) <= MAX_REQUEST and not data.endswith(b"\n"):
        if end is not None:
            if (left := end - time.monotonic()) <= 0:
                raise TimeoutError(f"no whole line in {within} s")
            conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return bytes(data)


def serve(config: Config, idle_exit: float | None = None) -> int:
    """Answer recall requests until idle for `idle_exit` seconds (MEMIDX_RECALL_IDLE, default
    an hour): 0; until SIGTERM or SIGHUP: 128 + the signal, its socket and pid file gone as
    on an idle stop. 0 within LOCK_WAIT s when another server runs. Its pid is in `recall.pid`
    meanwhile."""
    from memidx.portable import file_lock
    from memidx.stopping import stopped_by_signals

    idle = idle_exit or float(os.environ.get("MEMIDX_RECALL_IDLE") or IDLE_EXIT)
    path = socket_path(config)
    if path is None:
        print("memidx: error: no private folder for the recall server's socket", file=sys.stderr)
        return 1
    ensure_folder(folder := server_folder(config))
    with stopped_by_signals() as stop, file_lock(folder / "recall.lock", timeout=LOCK_WAIT) as mine:
        if not mine:
            return 0
        taken = folder.glob(f"{SUSPECT}.*")  # marks hooks cut off at their deadline had in hand
        for done in (STARTED, SUSPECT, *taken):  # started: the lock says so; a mark: old news
            (folder / done).unlink(missing_ok=True)
        pid = folder / PID_NAME
        held = held_folder(folder)
        try:
            write_pid(pid)
            stop.owned.append(lambda: forget_pid(pid))  # a stop past its limit removes it too
            _serve(config, path, idle, stop.owned)
        finally:
            forget_pid(pid)
            left_in_moved(held, folder, path)
    return stop.code


def left_in_moved(held: int | None, folder: Path, path: Path) -> None:
    """Remove the pid file and the socket (when it is in `folder`) from the folder `held`
    when the memory was moved meanwhile: the server, which exits then, removed them by their
    old paths, where they are no longer, and they were left in the moved memory. The lock,
    moved with them, is still held: no other server wrote them there."""
    if held is None:
        return
    try:
        if moved(held, folder):
            unlink_in(held, PID_NAME)
            if path.parent == folder:
                unlink_in(held, path.name)
    finally:
        os.close(held)


def _serve(config: Config, path: Path, idle: float, owned: list[Callable[[], None]]) -> None:
    from memidx.agents.recall_loop import serve_on

    serve_on(config, path, idle, owned)


def write_pid(pid: Path) -> None:
    """Name this process in `pid` through a draft renamed over it (only the holder of the
    server's lock writes it): a reader never finds it empty or half written, a full disk
    leaves none, and a killed server's draft is removed by the next one."""
    from memidx.drafts import replace_durably

    replace_durably(pid, f"{os.getpid()}\n".encode("ascii"), "tmp", durable=False)


def named_in_pid(pid: Path, began: tuple[int, int] | None = None) -> bool:
    """Whether `pid` still names this process: not once the memory's folder or its `.memidx`
    was deleted (a server whose socket is in the runtime folder outlived its memory by its
    idle hour, answering from a deleted index), nor once a server of a new `.memidx` wrote
    its own. One it cannot read names it while it is the file `began` identifies, the one it
    began with: with no descriptor left (EMFILE: hooks waiting their turn hold them), the
    server took itself for another's and closed (a new server's pid file replaces it)."""
    from memidx.drafts import read_own
    from memidx.paths import file_identity

    read = read_own(pid, 128)  # as it is: never a FIFO's wait
    if read is None:
        return began is not None and file_identity(pid) == began
    return read.strip() == str(os.getpid()).encode("ascii")


def forget_pid(pid: Path) -> None:
    """Remove the pid file if it names this process: a stale one would name whatever process
    takes the pid next, and what stops the server by its pid would stop that one."""
    from memidx.drafts import read_own

    read = read_own(pid, 128)  # as it is: a FIFO there was waited on for ever, at the exit
    with contextlib.suppress(OSError, ValueError):
        if read is not None and int(read.decode("ascii").strip()) == os.getpid():
            pid.unlink()
