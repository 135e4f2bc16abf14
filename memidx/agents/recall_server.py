"""The warm recall server: one process per memory that keeps the model loaded, so a prompt hook
(a new process per prompt) answers in tens of milliseconds instead of paying ~1 s of imports
and model load. A Unix socket in the clone's state folder, or where that path is too long for
a socket, in the user's private runtime folder (nothing listens on the network);
every loop is bounded: one request per connection, a size limit, timeouts, and the server exits
after an idle hour. The hook starts it in the background when it does not answer."""

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
from typing import cast

from memidx.config import Config

# A request: the prompt (MAX_PROMPT_CHARS, 6 bytes each in JSON at most) and the session's hits
# (up to session.MAX_KEYS refs); 64 KiB refused a session's 1,500th hit or a long prompt.
MAX_REQUEST = 4 * 1024 * 1024
# What a memory whose folder cannot be written (mounted read-only, shared) answers a writer:
# no server runs there, and the hook recalls in its own process, from the index it only reads.
READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
IDLE_EXIT = 3600.0  # seconds without a request before the server exits
MAX_REQUESTS = 1_000_000
PID_NAME = "recall.pid"  # the running server's pid, written by the lock's holder only
STARTED = "recall.started"  # touched by the hook that starts a server, removed by the server
START_GRACE = 10.0  # seconds a started server has to take its lock before hooks start another
SOCKET_NAME = "recall.sock"
CONFIG = "config"  # the request's key for config_key()
STALE = "configuration changed"  # the answer's error when the hook's configuration differs
BACKLOG = 128  # hooks connecting at once: at 16 the 17th at once was refused
ACK = b"\x06"  # the server's first byte on each connection, at once: it is alive (recall_loop)
# Seconds a hook waits for ACK before it counts the server as wedged: 20 hooks at once, 7
# times, on the 2 cores here at a load of 7-8, were acknowledged in p50 1-3 ms, p99 18-138 ms,
# max 20-140 ms (4 runs); and the hook still has time to recall in its own process after it.
ACK_WAIT = 0.3
NO_ACK = "no acknowledgement"  # the answer's error when a server accepted and never acknowledged
# What the server sends instead of ACK, and the answer's error each makes: its answering thread
# has been on one prompt for recall_loop.STALLED_AFTER s (a stuck read, a deadlock), or it is
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


def ask(config: Config, request: Fields, timeout: float, keep: float = 0.0) -> Fields | None:
    """The server's answer to `request`, or None when no server answers in `timeout`; an
    answer whose error is NO_ACK (and `pid`, the server's process where the system tells)
    when one took the connection and did not acknowledge it within ACK_WAIT seconds, one of
    TURNED_AWAY's when it said it cannot answer, NO_ANSWER when it acknowledged and then did
    not answer: it closed, or it said meanwhile it was stalled on an answer (one busy with
    other hooks' prompts is waited for: _answer); each of these says when it was HEARD."""
    path = socket_path(config)
    if path is None or not path.exists():
        return None
    end = time.monotonic() + timeout
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(max(0.01, min(timeout, ACK_WAIT)))
            try:  # connected when the server listens; its backlog full, not even that
                conn.connect(str(path))
                first = conn.recv(1)
            except TimeoutError:
                return _unacknowledged(conn, timeout)
            heard = time.monotonic()
            if first != ACK:
                return {"error": TURNED_AWAY[first], HEARD: heard} if first in TURNED_AWAY else None
            conn.settimeout(max(0.01, end - time.monotonic()))
            sent = {**request, CONFIG: config_key(config)}
            conn.sendall(json.dumps(sent).encode("utf-8") + b"\n")
            conn.shutdown(socket.SHUT_WR)
            answer = _answer(conn, path, end, keep)
    except (OSError, ValueError):
        return None
    try:  # a line without its end: the server ended while it wrote (killed, closing)
        loaded: object = json.loads(answer) if answer.endswith(b"\n") else None
    except ValueError:
        loaded = None
    if not isinstance(loaded, dict):
        return {"error": NO_ANSWER, HEARD: heard}
    return {**cast(dict[str, object], loaded), HEARD: time.monotonic()}


def _answer(conn: socket.socket, path: Path, end: float, keep: float = 0.0) -> bytes:
    """The answer's line, waited for until `end` while the server is answering (looked at
    every PROBE_EVERY s, and `keep` s before `end`, the last moment the hook's own recall
    fits: _answering), b"" when it does not come: a hook whose own prompt, or one before it,
    the server's thread is stuck on recalls in its own process in time."""
    data, last_chance = bytearray(), end - keep
    while (left := end - time.monotonic()) > 0:
        before = last_chance - time.monotonic()  # the look then, not one PROBE_EVERY too late
        conn.settimeout(max(0.01, min(PROBE_EVERY, left, before if before > 0 else left)))
        try:
            return read_line(conn, data)
        except TimeoutError:
            if not _answering(path, end - time.monotonic()):
                return b""
    return b""


def _answering(path: Path, left: float = ACK_WAIT) -> bool:
    """Whether the server at `path` acknowledges a second connection with ACK, or CLOSING (it
    answers the hooks it acknowledged first), within `left` s: not stalled on an answer, only
    busy with others (the connection, empty, is a no-op for it)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(max(0.01, min(ACK_WAIT, left)))
        try:
            probe.connect(str(path))
            return probe.recv(1) in (ACK, CLOSING)
        except OSError:
            return False


def _unacknowledged(conn: socket.socket, timeout: float) -> Fields | None:
    """NO_ACK with the server's pid, when this hook waited the whole ACK_WAIT (None if less)."""
    from memidx.sockets import peer_pid

    return {"error": NO_ACK, "pid": peer_pid(conn)} if timeout >= ACK_WAIT else None


def ask_waiting(
    config: Config, request: Fields, timeout: float, keep: float = 0.0
) -> Fields | None:
    """ask(), waiting up to `timeout` for a server that is still loading its model, but not
    into the last `keep` seconds (what the hook's own recall needs when none answers)."""
    end = time.monotonic() + timeout
    answer = ask(config, request, timeout, keep)
    while answer is None and starting(config) and (now := time.monotonic()) < end - keep:
        time.sleep(min(0.05, end - keep - now))
        answer = ask(config, request, end - time.monotonic(), keep)
    return answer


def starting(config: Config) -> bool:
    """Whether a server holds its lock (it may still be loading the model)."""
    from memidx.portable import file_lock

    lock = server_folder(config) / "recall.lock"
    if not lock.exists():
        return False
    try:
        with file_lock(lock, wait=False) as free:
            return not free
    except OSError as exc:
        if exc.errno not in READ_ONLY:
            raise
        return False  # a lock file this process cannot open: no server can start here


def read_line(conn: socket.socket, data: bytearray | None = None) -> bytes:
    """One line from `conn` (into `data`, which keeps what came when it times out)."""
    data = bytearray() if data is None else data
    while len(data) <= MAX_REQUEST and not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return bytes(data)


def start(config: Config) -> None:
    """Start the server in the background (it exits at once when another one runs); none
    where it could have no socket, nor in a memory whose folder cannot be written."""
    from memidx.portable import start_detached

    if socket_path(config) is None or starting(config) or _started_lately(config):
        return
    log_path = server_folder(config) / "recall-server.log"
    # the child serves this very memory (-C: never by changing this process's environment)
    argv = [sys.executable, "-m", "memidx", "-C", str(config.root), "agent", "serve"]
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("ab") as log:
            start_detached(argv, log)
    except OSError as exc:
        if exc.errno not in READ_ONLY:
            raise


def _started_lately(config: Config) -> bool:
    """Whether a hook started a server within START_GRACE seconds (marking it so now if not):
    twenty hooks at once that found no server each started one, nineteen of which loaded
    memidx only to find the first's lock, on the cores the hooks' own recall needed."""
    mark = server_folder(config) / STARTED
    with contextlib.suppress(OSError):
        if time.time() - mark.stat().st_mtime < START_GRACE:
            return True
    with contextlib.suppress(OSError):
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()
    return False


def serve(config: Config, idle_exit: float | None = None) -> int:
    """Answer recall requests until idle for `idle_exit` seconds (MEMIDX_RECALL_IDLE, default
    an hour): 0; until SIGTERM or SIGHUP: 128 + the signal, its socket and pid file gone as
    on an idle stop. 0 at once when another server runs. Its pid is in `recall.pid` meanwhile."""
    from memidx.portable import file_lock
    from memidx.stopping import stopped_by_signals

    idle = idle_exit or float(os.environ.get("MEMIDX_RECALL_IDLE") or IDLE_EXIT)
    path = socket_path(config)
    if path is None:
        print("memidx: error: no private folder for the recall server's socket", file=sys.stderr)
        return 1
    (folder := server_folder(config)).mkdir(parents=True, exist_ok=True)
    with stopped_by_signals() as stop, file_lock(folder / "recall.lock", wait=False) as mine:
        if not mine:
            return 0
        taken = folder.glob(f"{SUSPECT}.*")  # marks hooks cut off at their deadline had in hand
        for done in (STARTED, SUSPECT, *taken):  # started: the lock says so; a mark: old news
            (folder / done).unlink(missing_ok=True)
        pid = folder / PID_NAME
        try:
            write_pid(pid)
            stop.owned.append(lambda: forget_pid(pid))  # a stop past its limit removes it too
            _serve(config, path, idle, stop.owned)
        finally:
            forget_pid(pid)
    return stop.code


def _serve(config: Config, path: Path, idle: float, owned: list[Callable[[], None]]) -> None:
    from memidx.agents.recall_loop import serve_on

    serve_on(config, path, idle, owned)


def write_pid(pid: Path) -> None:
    """Name this process in `pid` through a draft renamed over it (only the holder of the
    server's lock writes it): a reader never finds it empty or half written, a full disk
    leaves none, and a killed server's draft is removed by the next one."""
    from memidx.drafts import replace_durably

    replace_durably(pid, f"{os.getpid()}\n".encode("ascii"), "tmp", durable=False)


def forget_pid(pid: Path) -> None:
    """Remove the pid file if it names this process: a stale one would name whatever process
    takes the pid next, and what stops the server by its pid would stop that one."""
    with contextlib.suppress(OSError, ValueError):
        if int(pid.read_text(encoding="utf-8").strip()) == os.getpid():
            pid.unlink()
