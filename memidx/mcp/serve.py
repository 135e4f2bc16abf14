"""`memidx mcp`: start the server. The index and the model load in the reader thread while the
main thread imports the MCP SDK (~1 s of pydantic models), so the first answer comes soon after
the handshake. stdout is the protocol's alone; diagnostics go to stderr and to a bounded log
file, `.memidx/mcp.log`."""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from memidx.config import Config
from memidx.errors import REBUILD_HINT, MemidxError, NewerIndex, UsageError, missing_module
from memidx.mcp.answers import search_text
from memidx.mcp.hand_over import HandOver
from memidx.mcp.own_log import OwnLog
from memidx.mcp.warm import WarmIndex
from memidx.mcp.writing_thread import WritingThread
from memidx.search.query import searched_part
from memidx.state_folder import ensure_folder

if TYPE_CHECKING:
    from memidx.search.searcher import Ahead

LOG_BYTES = 512 * 1024  # the log file and one older copy: at most 1 MiB on disk
TOKEN_VARIABLE = "MEMIDX_MCP_TOKEN"
MIN_TOKEN_CHARS = 16
DEFAULT_PORT = 8765
BLOCKED_WAIT = 2.0  # seconds a stopped server waits for a thread blocked writing to its client
log = logging.getLogger("memidx.mcp")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Listen:
    """Where the HTTP transport listens, and the bearer token every request must carry."""

    host: str
    port: int
    token: str | None


def http_listen(host: str, port: int, *, allow_remote: bool, token: str | None) -> Listen:
    """Loopback by default; any other address needs `--allow-remote` and a bearer token."""
    if not 0 < port < 65536:
        raise UsageError(f"--port {port} is not a TCP port", "give a number from 1 to 65535")
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise UsageError(
            f"{TOKEN_VARIABLE} is shorter than {MIN_TOKEN_CHARS} characters",
            "use a long random token, e.g. `openssl rand -hex 32`",
        )
    if not is_loopback(host):
        if not allow_remote:
            raise UsageError(
                f"--host {host} is not a loopback address: the memory would be open to the network",
                "serve on 127.0.0.1, or pass --allow-remote with a token in $MEMIDX_MCP_TOKEN",
            )
        if token is None:
            raise UsageError(
                f"--allow-remote needs a bearer token in ${TOKEN_VARIABLE}",
                "set it to a long random token; clients send `Authorization: Bearer <token>`",
            )
    return Listen(host, port, token)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Workers:
    """One thread reads (it owns the warm index: SQLite connections never change threads),
    one writes notes (remember opens its own connections, as a CLI process does), so a commit
    never holds up a search, and one files turns: a remember waiting up to 10 s for a person's
    rebase (or 30 s for another remember) held a file_turn sent behind it past an agent hook's
    deadline, for every session of a shared server. Each call is logged with its time; errors
    the user can act on become ToolError's one line, never a traceback."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.warm = WarmIndex(config)
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="memidx-read")
        self._writer = WritingThread(lambda exc: error_line(exc, config))
        self._filer = ThreadPoolExecutor(1, thread_name_prefix="memidx-file")
        self.warming = self._reader.submit(self._warm_up)
        self.hand_over = HandOver(config)

    def _warm_up(self) -> None:
        started = time.perf_counter()
        try:
            self.warm.warm()
        except MemidxError as exc:  # said again, as a tool error, at the first search
            log.warning("memidx: warning: %s", exc)
            return
        log.info("index and model loaded in %.0f ms", (time.perf_counter() - started) * 1000)

    def embed_ahead(self, query: str) -> Ahead | None:
        """A search tool call has arrived: start embedding its query (warm.embed_ahead)."""
        return self.warm.embed_ahead(searched_part(search_text(query)))  # as answer() cuts it

    def forget_ahead(self, ahead: Ahead) -> None:
        """The search call `ahead` was started for was cancelled, or its session ended."""
        self.warm.forget_ahead(ahead)

    def settle(self) -> None:
        """Once the SDK is in: the work that would have slowed its import (the narrow first
        pass over many vectors), on the reading thread after the warm-up."""
        self._reader.submit(self.warm.settle)

    async def read(self, name: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await self._run(self._reader, name, fn, *args, **kwargs)

    async def write(self, name: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await self._run(self._writer, name, fn, *args, **kwargs)

    def after(self, name: str, fn: Callable[[], None]) -> None:
        """Run `fn` on the writing thread after the call running there (WritingThread.after)."""
        self._writer.after(name, fn)

    async def file(self, name: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A turn or fact appended to the log: never queued behind a note's commit."""
        return await self._run(self._filer, name, fn, *args, **kwargs)

    async def _run(
        self,
        pool: ThreadPoolExecutor | WritingThread,
        name: str,
        fn: Callable[..., T],
        *args: Any,
        **kwargs: Any,
    ) -> T:
        started = time.perf_counter()
        try:
            result = await asyncio.wrap_future(pool.submit(fn, *args, **kwargs))
        except asyncio.CancelledError:  # no failure: a call already running ends on its thread
            log.info("%s not waited for after %.1f ms: cancelled (by the client, the session's "
                     "end or the server's stop)", name, _ms(started))  # fmt: skip
            raise
        except BaseException as exc:
            line = error_line(exc, self.config)
            log.info("%s failed in %.1f ms: %s", name, _ms(started), line or repr(exc))
            if isinstance(exc, NewerIndex):  # this server outlived an upgrade: it stops
                self.hand_over.met(exc)
            if line is None:
                raise
            raise Failed(line) from None
        log.info("%s answered in %.1f ms", name, _ms(started))
        return result

    def close(self) -> None:
        self._writer.shutdown()
        self._filer.shutdown(wait=True)
        self._reader.submit(self.warm.close).result()
        self._reader.shutdown(wait=True)


class Failed(Exception):
    """An expected failure, as the one line `memidx` would print."""


def error_line(exc: BaseException, config: Config) -> str | None:
    """The one line memidx's command line prints for `exc`; None for a bug."""
    if isinstance(exc, UsageError):
        return f"memidx: usage error: {exc}"
    if isinstance(exc, MemidxError):
        return f"memidx: error: {exc}"
    if isinstance(exc, sqlite3.DatabaseError):
        from memidx.index.connection import trouble

        passing = trouble(exc, config.index_path)
        return f"memidx: error: {passing or f'the index is unusable: {exc} ({REBUILD_HINT})'}"
    if isinstance(exc, ModuleNotFoundError) and (missing := missing_module(exc.name)):
        return f"memidx: error: {missing}"  # the line every command says (memidx.errors)
    if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"memidx: error:{where} {exc.strerror or exc}"
    return None


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def start_logging(config: Config, *, stderr: bool = True) -> None:
    """Diagnostics to stderr (unless not `stderr`: the shared server has none to speak of)
    and to .memidx/mcp.log (rotated at LOG_BYTES); never stdout."""
    form = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler()] if stderr else []
    path = config.state_dir / "mcp.log"
    try:
        ensure_folder(config.state_dir)
        handlers.append(OwnLog(path, maxBytes=LOG_BYTES, backupCount=1, encoding="utf-8"))
    except OSError as exc:  # a read-only memory: stderr only
        from memidx.drafts import NOT_OWN, not_own

        why = not_own(path) if exc.errno in NOT_OWN else exc
        print(f"memidx: warning: no log file in {config.state_dir}: {why}", file=_stderr())
    root = logging.getLogger()
    for handler in handlers:
        handler.setFormatter(form)
        root.addHandler(handler)
    root.setLevel(logging.WARNING)  # the SDK's and uvicorn's chatter stays out
    log.setLevel(logging.INFO)


def _stderr() -> Any:
    import sys

    return sys.stderr


def serve(config: Config, listen: Listen | None) -> int:
    """Serve over stdio (listen None) or streamable HTTP until the client goes away (0), or
    until SIGTERM or SIGHUP (128 + the signal)."""
    from memidx.stopping import stopped_by_signals

    start_logging(config)
    with stopped_by_signals() as stop:
        log.info("memidx mcp %s for %s (pid %d)", "stdio" if listen is None else "http",
                 config.root, os.getpid())  # fmt: skip
        workers = Workers(config)  # the index and the model load while the SDK imports
        try:
            from memidx.mcp.http import run_http
            from memidx.mcp.server import build_server, run_stdio

            server = build_server(workers)
            # The SDK's ~100k long-lived objects (its pydantic models) out of the collector's
            # sight: a full collection no longer walks them in the middle of an answer.
            gc.freeze()
            workers.settle()
            if listen is None:
                run_stdio(server)
            else:
                run_http(server, listen)
        finally:
            workers.close()
            log.info("memidx mcp stopped%s", f" by {stop.signal_name}" * bool(stop.code))
    if stop.code:
        leave_blocked_writers(stop.code)
    return stop.code


def leave_blocked_writers(code: int, wait: float = BLOCKED_WAIT) -> None:
    """After a stop by signal: a thread still writing an answer to a client that reads
    nothing (the SDK writes stdout on a worker thread, blocked once the pipe is full) held the
    exit for ever, as Python waits for every such thread at exit, long after the stop's own
    30 s limit had ended. Such threads get `wait` seconds, then the process ends at once."""
    import sys
    import threading

    end = time.monotonic() + wait
    for thread in threading.enumerate():
        if thread is threading.current_thread() or thread.daemon:
            continue
        thread.join(max(0.0, end - time.monotonic()))
        if thread.is_alive():
            log.warning("memidx: warning: %s still writes to a client that reads nothing: "
                        "exiting at once", thread.name)  # fmt: skip
            logging.shutdown()
            sys.stderr.flush()
            os._exit(code)
