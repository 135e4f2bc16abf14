"""The recall server's loop (memidx/agents/recall_server.py starts it): the main thread accepts
each hook and acknowledges it at once (recall_server.ACK), then the answering threads answer
(recall_workers.py). A hook so tells a server that is busy (acknowledged, its prompt waiting its
turn) from one that is wedged (stopped by SIGSTOP: no acknowledgement), which it replaces
(recall_wedge.py). A server whose answering thread is stuck on one prompt says so instead
(recall_server.STALLED), and so does one that is closing (CLOSING): the hook recalls in its own
process at once."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

from memidx.agents.model_failed import forget, server_failed
from memidx.agents.recall_server import (
    ACK,
    ACK_WAIT,
    BACKLOG,
    CLOSING,
    MAX_REQUESTS,
    PID_NAME,
    STALLED,
    SUSPECT_AFTER,
    config_key,
    named_in_pid,
    server_folder,
)
from memidx.agents.recall_workers import Workers
from memidx.code_stamp import code_stamp
from memidx.config import Config
from memidx.paths import file_identity
from memidx.sockets import clear_starting, starting_name, unlink_own

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.agents.recall import Recaller

# Seconds between looks at whether memidx's code changed (an upgrade): ~2 ms each. With the
# accept's ACCEPT_WAIT, a server that answers no prompt exits within 10 s of an upgrade.
CODE_CHECK = 9.0
ACCEPT_WAIT = 1.0  # seconds an accept waits; its socket and pid file are looked at after each
CLOSE_WAIT = 5.0  # seconds a closing server gives its threads to answer the hooks acknowledged
# An accept that fails (no descriptor left: each hook waiting its turn holds one) is tried again
# ACCEPT_PAUSE s later, for ACCEPT_RETRY_FOR s in a row at most before the server gives up (and
# closes, traced, for the next prompt to start another). Meanwhile hooks connect and are not
# acknowledged: two that find it so SUSPECT_AFTER (1 s) apart end it as wedged, untraced. The
# first is marked ACK_WAIT (0.3 s) after the first failure at the earliest; so the retries
# end within half of the 0.7 s left, the sleep's late wake under load and the close in the rest.
# Retried for ~5 s (100 times), the server was ended as wedged while it waited for a descriptor.
ACCEPT_PAUSE = 0.05
ACCEPT_RETRY_FOR = (SUSPECT_AFTER - ACK_WAIT) / 2


def serve_on(
    config: Config, path: Path, idle: float, owned: list[Callable[[], None]] | None = None
) -> None:
    """Load the model, listen on `path` and answer until idle for `idle` seconds (or another
    reason to stop, _loop). The socket's removal joins `owned` (memidx.stopping.Stop.owned),
    for a stop past its limit to do as well."""
    from memidx.agents.recall import Recaller

    recaller = Recaller(config, warm=True)
    try:
        recaller.embedder()  # load the model before the first request needs it
    except Exception as exc:  # a damaged model, a piece of onnxruntime missing: said in the
        server_failed(config, exc)  # trace, not only the log; hooks start none for a while
        raise
    forget(config)  # hooks start servers again at once
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        listen(server, path)
        bound = file_identity(path)
        if owned is not None:
            owned.append(lambda: unlink_own(path, bound))
        try:
            server.settimeout(ACCEPT_WAIT)
            _loop(server, recaller, idle, config_key(config), owner(path, server_folder(config)))
        finally:
            unlink_own(path, bound)


def owner(path: Path, folder: Path) -> Callable[[], bool]:
    """Whether the socket at `path` (listening now) and the pid file in `folder` are still
    this server's (_loop's `ours`)."""
    bound, pid = file_identity(path), folder / PID_NAME
    began = file_identity(pid)

    def ours() -> bool:
        return file_identity(path) == bound and named_in_pid(pid, began)

    return ours


def listen(server: socket.socket, path: Path) -> None:
    """Listen on `path`, which appears only once the server listens: bound and set listening
    under a name of its own, then renamed in place of `path` (and of a socket a killed server
    left, the lock being ours). Bound at `path` before it listened, a hook that connected in
    between was refused and recalled in its own process (memidx/mcp/daemon.py does the same)."""
    clear_starting(path.parent)  # killed servers' (this pid's too): never a live one's
    starting = starting_name(path)
    try:
        server.bind(str(starting))
        server.listen(BACKLOG)
        starting.replace(path)
    except BaseException:
        starting.unlink(missing_ok=True)
        raise


def _loop(
    server: socket.socket, recaller: Recaller, idle_exit: float, key: str, ours: Callable[[], bool]
) -> None:
    """Answer until idle, or until memidx's code changed (an upgrade: looked at every
    CODE_CHECK s and before each answer) or the index's schema is newer, its socket or its
    pid file is no longer `ours` (looked at every ACCEPT_WAIT s and before each accept;
    removed, replaced: no hook reached it, and its lock kept others from starting; the
    memory's folder deleted), a hook came with another
    configuration (`key`): the next prompt starts a server of the new code or configuration;
    or an answer is stuck, or an answering thread ended: the server would acknowledge hooks it
    never answers."""
    workers = Workers(recaller, key)
    last = checked = time.monotonic()
    failed, first_failed = 0, 0.0  # accepts failed in a row, and when the first of them did
    spare = _spare()
    try:
        for _ in range(MAX_REQUESTS):
            now = time.monotonic()
            if workers.lost():  # the hooks waiting for it are let go (close), and recall
                workers.trace("an answering thread ended: the server closes for another")
                return
            if now - last > idle_exit or workers.stop.is_set() or workers.stuck(now):
                return
            if now - checked >= CODE_CHECK:
                checked = now
                if _upgraded(workers.running):
                    return
            if not ours():  # a stat and a read, ~20 us: its memory deleted, gone within ~1 s
                return
            try:
                conn, _ = server.accept()
            except TimeoutError:  # no hook waiting: the failures before it were no row
                failed = 0
                continue
            except OSError as exc:  # out of descriptors (EMFILE), a connection aborted: not
                # the server's end, which took every hook it acknowledged with it
                at = time.monotonic()
                first_failed = at if failed == 0 else first_failed
                failed += 1
                if (took := at - first_failed) >= ACCEPT_RETRY_FOR:
                    _free(spare)  # the trace's: none may be left (EMFILE)
                    spare = None
                    workers.trace(f"its socket failed {failed} times in {took:.2f} s: {exc}")
                    return
                time.sleep(ACCEPT_PAUSE)  # a descriptor freed as an answer ends
                continue
            failed = 0
            last = time.monotonic()
            # full: CLOSING (it takes no more, and answers those it took), never STALLED,
            # which a waiting hook's look took for a stuck answer and gave up its place
            reply = STALLED if workers.stalled(last) else CLOSING if workers.full() else ACK
            try:
                conn.sendall(reply)  # at once, however many wait: this server is alive
            except OSError:
                reply = b""
            if reply != ACK:
                conn.close()
                continue
            workers.waiting.put(conn)
    finally:
        _free(spare)
        workers.close(workers.stuck(time.monotonic()))
        _turn_away(server, workers)


def _upgraded(running: str) -> bool:
    """Whether memidx's code is no longer the code `running` stamps (an upgrade). Unknown is
    no change, looked at again CODE_CHECK s later: with no descriptor left to list its
    modules (EMFILE), code_stamp() raised out of the loop and ended the server."""
    try:
        return code_stamp() != running
    except OSError:
        return False


def _spare() -> int | None:
    """A descriptor kept for the trace of a server that gives up on its socket for want of
    one (EMFILE): without it, the trace could not be opened and went to the server's log."""
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


def _free(spare: int | None) -> None:
    """Close the descriptor `spare` (_spare) if there is one: another may take it now."""
    if spare is not None:
        with contextlib.suppress(OSError):
            os.close(spare)


def _turn_away(server: socket.socket, workers: Workers) -> None:
    """While the threads answer the hooks acknowledged (CLOSE_WAIT s at most), tell each hook
    that connects that this server is closing: one not acknowledged would wait ACK_WAIT for
    nothing and count the server as wedged, one acknowledged would wait for no answer."""
    end = time.monotonic() + CLOSE_WAIT
    with contextlib.suppress(OSError):
        server.settimeout(0.05)
        while workers.answering(now := time.monotonic()) and now < end:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            # STALLED when an answer is slow: a waiting hook's look takes CLOSING for "its
            # answer comes" (recall_client._answering), which a stuck thread would never give
            stalled = workers.stalled(now)
            with conn, contextlib.suppress(OSError):
                conn.sendall(STALLED if stalled else CLOSING)
