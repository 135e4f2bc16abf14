"""The prompt hook's side of the warm recall server (memidx/agents/recall_server.py): asking it
over its socket, waiting for one that is still loading its model, and starting one in the
background when none answers. Every wait ends by the hook's deadline: it fails open."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from memidx.agents.recall_server import (
    ACK,
    ACK_WAIT,
    CLOSING,
    CONFIG,
    HEARD,
    MAX_REQUEST,
    NO_ACK,
    NO_ANSWER,
    PROBE_EVERY,
    READ_ONLY,
    START_GRACE,
    STARTED,
    TURNED_AWAY,
    Fields,
    config_key,
    server_folder,
    socket_path,
)
from memidx.agents.server_log import LOG_NAME, bounded
from memidx.config import Config
from memidx.frozen import cast
from memidx.portable import OPEN_AS_IS
from memidx.state_folder import ensure_folder

START_LOCK = "recall.started.lock"  # held while a hook reads and writes STARTED
START_LOCK_WAIT = 0.05  # seconds: the holder reads and writes a line (~0.1 ms)
MAX_MARK = 128  # bytes read of STARTED: a time and a boot id (~60)


def ask(config: Config, request: Fields, timeout: float, keep: float = 0.0) -> Fields | None:
    """The server's answer to `request`, or None when no server answers in `timeout`; an
    answer whose error is NO_ACK (and `pid`, the server's process where the system tells)
    when one took the connection and did not acknowledge it within ACK_WAIT seconds (waited
    for only when that many are left before the last `keep`), one of
    TURNED_AWAY's when it said it cannot answer, NO_ANSWER when it acknowledged and then did
    not answer: it closed, or it said meanwhile it was stalled on an answer (one busy with
    other hooks' prompts is waited for: _answer); each of these says when it was HEARD."""
    path = socket_path(config)
    if path is None or not path.exists():
        return None
    end = time.monotonic() + timeout
    # not into the time kept for the hook's own recall: a wedged server's whole ACK_WAIT ran
    # into it, and that recall, promised it, was cut off or never began
    wait = min(ACK_WAIT, timeout - keep if timeout > keep else timeout)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(max(0.01, wait))
            try:  # connected when the server listens; its backlog full, not even that
                conn.connect(str(path))
                first = conn.recv(1)
            except TimeoutError:
                return _unacknowledged(conn, wait)
            heard = time.monotonic()
            if first != ACK:
                return {"error": TURNED_AWAY[first], HEARD: heard} if first in TURNED_AWAY else None
            sent = {**request, CONFIG: config_key(config)}
            answer = b""
            # the system's word that the server closed (it let the hooks waiting on a stuck
            # answer go) is no answer from a server heard from, not no server
            with contextlib.suppress(ConnectionError):
                if _send(conn, json.dumps(sent).encode("utf-8") + b"\n", path, end, keep):
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


def _send(conn: socket.socket, request: bytes, path: Path, end: float, keep: float) -> bool:
    """Whether `request` was written whole, waited on as the answer is (_answer): the server's
    workers read it only as one is free, and a long one (a prompt of 32,000 characters each
    escaped to 6 bytes) fills the socket's buffer until then. Written at once, it waited to
    the deadline on a server stuck on an answer, and past the time kept for the hook's own
    recall on one that had stopped."""
    left = [memoryview(request)]

    def sent() -> bool:
        left[0] = left[0][conn.send(left[0]) :]
        return not left[0]

    return _while_answering(conn, path, end, keep, sent)


def _answer(conn: socket.socket, path: Path, end: float, keep: float = 0.0) -> bytes:
    """The answer's line, waited for while the server is answering (_while_answering), b""
    when it does not come: a hook whose own prompt, or one before it, the server's thread is
    stuck on recalls in its own process in time."""
    data = bytearray()

    def read() -> bool:
        # one read a step, not the whole line (read_line): each read waits up to its timeout,
        # and a server that kept sending a little held the hook past its end, to MAX_REQUEST
        chunk = conn.recv(65536)
        data.extend(chunk)
        return not chunk or data.endswith(b"\n") or len(data) > MAX_REQUEST

    return bytes(data) if _while_answering(conn, path, end, keep, read) else b""


def _while_answering(
    conn: socket.socket, path: Path, end: float, keep: float, step: Callable[[], bool]
) -> bool:
    """Whether `step` (a read or a write on `conn`, which times out) was done, done again
    until it says so while the server is answering, until `end`: it is looked at every
    PROBE_EVERY s, and ACK_WAIT s before `keep` s before `end`, the last moment the hook's own
    recall fits (_answering). A look before that last moment ends by it: one that waited its
    whole ACK_WAIT ran into the time kept, and the hook's own recall, promised it, was cut off
    or never began."""
    last_chance = end - keep
    last_look = last_chance - ACK_WAIT  # the look then, not one PROBE_EVERY too late
    while (left := end - (now := time.monotonic())) > 0:
        wake = last_look - now
        conn.settimeout(max(0.01, min(PROBE_EVERY, left, wake if wake > 0 else left)))
        try:
            if step():
                return True
        except TimeoutError:
            now = time.monotonic()
            if not _answering(path, (last_chance if now < last_chance else end) - now):
                return False
    return False


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


def _unacknowledged(conn: socket.socket, waited: float) -> Fields | None:
    """NO_ACK with the server's pid, when this hook waited the whole ACK_WAIT (None if less)."""
    from memidx.sockets import peer_pid

    return {"error": NO_ACK, "pid": peer_pid(conn)} if waited >= ACK_WAIT else None


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
    """Whether a server holds its lock (it may still be loading the model); not when its lock
    cannot be looked at (start() says why)."""
    try:
        return _held(config)
    except OSError:  # raised, it went out of the prompt hook before its own recall
        return False


def _held(config: Config) -> bool:
    """Whether a server holds its lock; OSError when the lock cannot be looked at: a folder
    of that name (EISDIR), no descriptor left (EMFILE), a memory that cannot be written."""
    from memidx.portable import file_lock

    lock = server_folder(config) / "recall.lock"
    if not lock.exists():
        return False
    with file_lock(lock, wait=False) as free:
        return not free


def start(config: Config) -> None:
    """Start the server in the background (it exits at once when another one runs); none
    where it could have no socket, nor in a memory whose folder cannot be written, nor where
    its lock cannot be taken (the server could not take it either), nor while the model
    failed to load lately and its files are as they were (memidx.agents.model_failed), nor
    while this memidx met an index newer than it lately (memidx.agents.index_newer)."""
    from memidx.agents.index_newer import failing as newer
    from memidx.agents.model_failed import failing
    from memidx.children import start_detached
    from memidx.drafts import NOT_OWN, not_own, open_to_append

    if socket_path(config) is None or failing(config) or newer(config):  # it would fail so
        return
    try:
        if _held(config) or _started_lately(config):
            return
    except OSError as exc:  # a notice in the hook's log (runner), once a hook: not starting()'s
        if exc.errno not in READ_ONLY:
            print(f"memidx: notice: the recall server could not start: {exc}", file=sys.stderr)
        return
    log_path = server_folder(config) / LOG_NAME
    # the child serves this very memory (-C: never by changing this process's environment)
    argv = [sys.executable, "-m", "memidx", "-C", str(config.root), "agent", "serve"]
    try:
        ensure_folder(log_path.parent)
        bounded(log_path)  # servers failing at each start grew it for ever
        with open_to_append(log_path) as log:  # a FIFO there fails at once: it hung the hook
            start_detached(argv, log)
    except OSError as exc:
        # raised, it went out of the prompt hook before its own recall (which starts no
        # process) and out of the session start before its digest: no process left under a
        # limit (EAGAIN), a full disk; the hook's stderr is a notice in its log (runner)
        why = not_own(log_path) if exc.errno in NOT_OWN else exc  # not ELOOP's own words
        if exc.errno not in READ_ONLY:
            print(f"memidx: notice: the recall server could not start: {why}", file=sys.stderr)


def _started_lately(config: Config) -> bool:
    """Whether a hook started a server within START_GRACE seconds (marking it so now if not):
    twenty hooks at once that found no server each started one, nineteen of which loaded
    memidx only to find the first's lock, on the cores the hooks' own recall needed."""
    from memidx.drafts import replace_durably
    from memidx.portable import boot_id, file_lock

    mark = server_folder(config) / STARTED
    boot = boot_id()
    try:  # one hook at a time: one that read no mark before another wrote its own started too
        with file_lock(mark.with_name(START_LOCK), timeout=START_LOCK_WAIT) as mine:
            if not mine:
                return True  # another hook is starting one this very moment
            made = _started_at(mark, boot)
            if made is not None and 0 <= time.monotonic() - made < START_GRACE:
                return True
            text = f"{time.monotonic()!r}\n" + (f"{boot}\n" if boot else "")
            with contextlib.suppress(OSError):  # renamed over it: a FIFO there is never waited on
                replace_durably(mark, text.encode("ascii"), "tmp", durable=False)
    except OSError:  # a memory whose folder cannot be written: nothing to mark (start())
        pass
    return False


def _started_at(mark: Path, boot: str | None) -> float | None:
    """When the mark was made, on time.monotonic(), which every process of a boot shares and
    which never steps: on the wall clock (its time of change), set back, every hook took a
    server for just started and none started one for as long; set forward, a second started.
    None for a mark of another boot than `boot` (the boot id written beside the time, where
    the system has one): that clock starts again at each boot, and a mark made before a
    reboot at about the time since this boot read as recent, so no hook started a server.
    One of an older memidx (empty), or a FIFO: its time of change, made so; one with a time
    alone (an older memidx's, or written where there is no boot id) counts by it; from the
    future on either clock (another boot, a wall clock set back since), none, so a mark keeps
    hooks from a start START_GRACE seconds at the most."""
    try:  # as it is (a FIFO there was waited on for a writer, by every hook: its recall lost)
        fd = os.open(mark, OPEN_AS_IS)
        try:
            lines = os.read(fd, MAX_MARK).decode("ascii", "replace").split()
        finally:
            os.close(fd)
        if len(lines) > 1 and boot is not None and lines[1] != boot:
            return None  # another boot's
        if lines:
            return float(lines[0])
        return time.monotonic() - (time.time() - mark.stat().st_mtime)
    except (OSError, ValueError):
        return None
