"""The shared MCP server of one memory (`memidx mcp --daemon SOCKET`, started by the stdio front
in memidx/mcp/shared.py): the SDK, the index and the model loaded once, one MCP session per
connection on a Unix socket, the same tools and workers as `memidx mcp` serving in its own
process. Bounded: at most MAX_SESSIONS at once, 16 MiB per message (memidx/mcp/framing.py),
and it exits after IDLE_EXIT seconds without a session (MEMIDX_MCP_IDLE)."""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from memidx.config import Config
from memidx.drafts import read_own, replace_durably
from memidx.mcp.hung import suspect_mark
from memidx.mcp.leftovers import clear_stale
from memidx.mcp.serve import Workers, log, start_logging
from memidx.mcp.shared import BUSY, GREETING, lock_for
from memidx.paths import file_identity
from memidx.sockets import clear_starting, starting_name, unlink_own

IDLE_VARIABLE = "MEMIDX_MCP_IDLE"
IDLE_EXIT = 3600.0
MAX_SESSIONS = 64  # sessions at once (agents in parallel); a front beyond it serves itself
SERVER_RECORD = "mcp-server.json"  # in the memory's .memidx: the pid and socket of the server
# Seconds a starting server waits for its lock: a front's look at it (shared._nobody_serves)
# or another stamp's server clearing leftovers holds it a moment, and a server that met one
# went at once, as if another served (3 of 300 starts with 20 fronts looking), its front
# waiting shared.START_GRACE seconds for nothing. A server that holds it keeps it.
LOCK_WAIT = 0.1


def serve_shared(config: Config, path: Path) -> int:
    """Serve sessions on `path` until idle (0), or until SIGTERM or SIGHUP (128 + the signal),
    leaving no socket nor record either way; 0 within LOCK_WAIT s when another server holds
    its lock."""
    from memidx.children import leave_parent
    from memidx.portable import file_lock

    os.umask(0o077)  # the socket, the record and the log: this user's alone
    start_logging(config, stderr=False)
    with file_lock(lock_for(path), timeout=LOCK_WAIT) as mine:
        if not mine:
            return 0
        with contextlib.suppress(OSError):  # a mark of the server before it: not this one
            suspect_mark(path).unlink(missing_ok=True)
        # No longer a descendant of the session that started it (the lock stays), before the
        # stop's watcher thread starts: a fork keeps no thread, and the shared server's stop
        # was never raised again out of the imports, nor ended at its limit.
        leave_parent()
        return _serve(config, path)


def _serve(config: Config, path: Path) -> int:
    from memidx.stopping import stopped_by_signals

    with stopped_by_signals() as stop:
        record = config.state_dir / SERVER_RECORD  # where status, tests and people find it
        workers: Workers | None = None
        try:
            _write_record(record, path, sessions=0)
            stop.owned.append(lambda: _forget(record))
            idle = idle_seconds(os.environ.get(IDLE_VARIABLE, ""))
            log.info("memidx mcp shared for %s on %s (pid %d)", config.root, path, os.getpid())
            workers = Workers(config)  # the index and the model load while the SDK imports
            started = time.perf_counter()
            import anyio

            from memidx.mcp.server import build_server

            server = build_server(workers)
            gc.freeze()  # see serve(): the SDK's long-lived objects out of the collector's way
            workers.settle()
            log.info("the SDK imported in %.0f ms", (time.perf_counter() - started) * 1000)
            anyio.run(partial(_listen, owned=stop.owned), server, path, idle, record, workers)
        finally:
            _forget(record)
            if workers is not None:
                workers.close()
            log.info("memidx mcp shared stopped%s", f" by {stop.signal_name}" * bool(stop.code))
    return stop.code


def idle_seconds(text: str) -> float:
    """MEMIDX_MCP_IDLE as seconds (at least one); the default when unset or not a number."""
    try:
        value = float(text) if text.strip() else IDLE_EXIT
    except ValueError:
        log.warning("memidx: warning: %s=%r is not a number of seconds: %.0f s it is",
                    IDLE_VARIABLE, text, IDLE_EXIT)  # fmt: skip
        return IDLE_EXIT
    return max(1.0, value) if math.isfinite(value) else IDLE_EXIT  # nan, inf: the default


def _write_record(record: Path, path: Path, *, sessions: int) -> None:
    """The record of this server: its pid and socket, its sessions, and since when (wall
    clock) it has had none; replaced whole, so a reader never sees half of it."""
    data = {"pid": os.getpid(), "socket": str(path), "sessions": sessions,
            "idle_since": None if sessions else time.time()}  # fmt: skip
    with contextlib.suppress(OSError):  # disk full, .memidx gone: status then says less
        # not synced: the server it describes does not outlive a power loss either
        replace_durably(record, (json.dumps(data) + "\n").encode("utf-8"), "tmp", durable=False)


def _forget(record: Path) -> None:
    """Remove the record of the running server if it is this one's."""
    with contextlib.suppress(OSError):
        if _names_this_process(record):
            record.unlink()


def _names_this_process(record: Path) -> bool:
    """Whether the record is this server's. Once a later server wrote its own (one started
    under another configuration or after an upgrade, or after `.memidx` was deleted), this
    one, its sessions ending, wrote over it, then removed it as it exited: `memidx status`
    said none ran while the later one served."""
    data = read_own(record, 64 * 1024)  # as it is: a FIFO there was waited on at the exit
    try:
        return json.loads(data or b"").get("pid") == os.getpid()
    except (ValueError, AttributeError):
        return False


async def _listen(
    server: Any, path: Path, idle: float, record: Path, workers: Workers, *,
    owned: list[Callable[[], None]],
) -> None:  # fmt: skip
    import anyio

    listener = await _listening(path)
    bound = file_identity(path)
    owned.append(lambda: unlink_own(path, bound))

    def recorded(active: int) -> None:
        if _names_this_process(record):
            _write_record(record, path, sessions=active)

    sessions = _Sessions(server, recorded, workers)
    try:
        async with listener, anyio.create_task_group() as group:
            group.start_soon(sessions.watch, idle, path, bound, group.cancel_scope)
            await listener.serve(sessions.handle, task_group=group)
    finally:
        unlink_own(path, bound)


async def _listening(path: Path) -> Any:
    """A listener on `path`, which appears only once it listens: bound and set listening under
    a name of its own, then renamed in place of `path` (and of a socket a killed server left,
    the lock being ours). A connection between the bind and the listen was refused, and a
    client that took the socket's appearance for the server being ready gave up."""
    import anyio

    clear_starting(path.parent)  # killed servers' (this pid's too): never a live one's
    clear_stale(path.parent)
    starting = starting_name(path)
    listener = await anyio.create_unix_listener(starting, mode=0o600)
    try:
        starting.replace(path)
    except BaseException:
        await listener.aclose()
        starting.unlink(missing_ok=True)
        raise
    return listener


class _Sessions:
    """The sessions in progress, and when the last one ended."""

    def __init__(self, server: Any, recorded: Callable[[int], None], workers: Workers) -> None:
        self.lowlevel: Any = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
        self.active = 0
        self.last = time.monotonic()
        self.recorded = recorded  # told the number of sessions whenever it changes
        self.workers = workers  # embeds each search call's query as soon as it arrives

    async def watch(
        self, idle: float, path: Path, bound: tuple[int, int] | None, scope: Any
    ) -> None:
        """Stop once idle for `idle` seconds, or once idle and the socket is no longer this
        server's (`.memidx` deleted and another server started in its place)."""
        import anyio

        while True:
            await anyio.sleep(min(idle, 1.0))
            if self.active:
                continue
            if file_identity(path) != bound:
                log.info("the socket is no longer this server's: exiting")
            elif time.monotonic() - self.last >= idle:
                log.info("no session for %.0f s: exiting", idle)
            else:
                continue
            scope.cancel()
            return

    async def handle(self, stream: Any) -> None:
        from memidx.mcp.ahead import SessionAhead
        from memidx.mcp.stdio import run_session

        async with stream:
            if self.active >= MAX_SESSIONS:
                log.warning("refused a session: %d in progress", self.active)
                with contextlib.suppress(Exception):
                    await stream.send(BUSY)
                return
            self.active += 1
            self.recorded(self.active)
            ahead = SessionAhead(self.workers.embed_ahead, self.workers.forget_ahead)
            try:
                await stream.send(GREETING)  # the front pumps the protocol only after it
                await run_session(self.lowlevel, _receiver(stream), _Writer(stream), ahead.heard)
            except Exception as exc:  # noqa: BLE001  # one broken session never ends the server
                log.warning("a session ended with %s: %s", type(exc).__name__, exc)
            finally:
                ahead.end()
                self.active -= 1
                self.last = time.monotonic()
                self.recorded(self.active)


def _receiver(stream: Any) -> Callable[[], Awaitable[bytes]]:
    """The connection's next bytes; b"" once it ended, however it did."""
    import anyio

    async def receive() -> bytes:
        try:
            return bytes(await stream.receive())
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError,
                anyio.BrokenResourceError):  # fmt: skip
            return b""

    return receive


class _Writer:
    """The socket as the stdio transport writes stdout."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    async def write(self, text: str) -> None:
        await self.stream.send(text.encode("utf-8"))

    async def flush(self) -> None:
        return None
