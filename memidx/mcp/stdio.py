"""One MCP session over a stream of bytes (this process's stdin and stdout, or a connection to
the shared server): the SDK's stdio transport, fed the messages memidx cuts out itself
(memidx/mcp/framing.py). The SDK drops a line that is not a JSON-RPC message without a word,
so its client waits for an answer that never comes, and it reads a line of any length into
memory. Here such a line gets its JSON-RPC error (memidx/mcp/verdict.py; -32600 for a
message over 16 MiB) and the session goes on; a blank line is no message and is passed over.
A batch (a JSON array) is served or refused as the session's protocol revision says
(memidx/mcp/batch.py)."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, cast

import anyio
import mcp_types
from mcp.server.stdio import stdio_server
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage

from memidx.mcp.batch import BATCH_VERSIONS, Answers, Batch, batch_items, negotiated, no_batches
from memidx.mcp.framing import Frame, Framing, TooLong
from memidx.mcp.verdict import Dropped, Good, asked_id, judge, refusal, refused_ids

Receive = Callable[[], Awaitable[bytes]]  # the next bytes the client sent; b"" at its end
Heard = Callable[[mcp_types.JSONRPCMessage], None]  # told each good message as it arrives
FINISH_WAIT = 60.0  # seconds the answers in progress are waited for once the client's stream ends
FINISH_VARIABLE = "MEMIDX_MCP_FINISH_WAIT"  # for tests: FINISH_WAIT, in seconds
log = logging.getLogger("memidx.mcp")


async def run_session(
    lowlevel: Any,
    receive: Receive,
    stdout: Any = None,
    heard: Heard | None = None,
) -> None:
    """Serve one session of the SDK's low-level server: messages from `receive`, answers to
    `stdout` (an object with async write and flush; None: this process's standard output,
    which the SDK guards from stray prints). `heard` is told each good message as it arrives."""
    messages = Messages(receive, heard)
    async with stdio_server(stdin=cast(Any, messages), stdout=stdout) as (read, write):
        answers = Answers(write)
        messages.answer_to(answers)
        await lowlevel.run(read, answers, lowlevel.create_initialization_options())


class Messages:
    """The client's messages as the SDK's stdio transport reads stdin, one line of text each;
    a bad one is answered on the session's write stream and never reaches the SDK."""

    def __init__(self, receive: Receive, heard: Heard | None) -> None:
        self.receive = receive
        self.heard = heard
        self.framing = Framing()
        self.ready: deque[Frame] = deque()
        self.lines: deque[str] = deque()  # the messages of a batch being served, for the SDK
        self.ended = False
        self.write: Any = None  # the session's write stream (Answers), once it is open
        self.opened = anyio.Event()
        self.version: str | None = None  # the protocol revision the handshake settles on

    def answer_to(self, write: Answers) -> None:
        self.write = write
        self.opened.set()

    def __aiter__(self) -> Messages:
        return self

    async def __anext__(self) -> str:
        await self.opened.wait()
        while not self.lines:
            frame = await self._next_frame()
            if frame is None:
                # The requests in progress are answered before the SDK hears of the end
                # (it would cancel them), so a client that closes its stream once it has sent
                # its last request still gets every answer.
                await self.write.finish(finish_wait())
                raise StopAsyncIteration
            items = None if isinstance(frame, TooLong) else batch_items(frame)
            if items is not None:
                await self._batch(items)
                continue
            judged = judge(frame)
            if isinstance(judged, Good):
                await self._pass(judged)
            elif isinstance(judged, Dropped):
                log.warning("dropped a notification: %s", judged.reason)
            elif judged is not None:
                await self._refuse(judged)
        return self.lines.popleft()

    async def _pass(self, good: Good) -> None:
        """Hand a good message to the SDK (and to `heard`); an initialize settles the version,
        a request is waited for, a cancellation is told to the answers."""
        self.version = negotiated(good.text) or self.version
        message = good.message
        if self.heard is not None:
            self.heard(message)
        if isinstance(message, mcp_types.JSONRPCRequest):
            self.write.take(message.id)
        elif (
            isinstance(message, mcp_types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
        ):
            found = cancelled_request_id_from_params(message.params)
            if found is not None:
                await self.write.cancel(found)
        self.lines.append(good.text + "\n")

    async def _batch(self, items: list[object]) -> None:
        """Serve a batch when the session's revision has them, else refuse each request of it
        with its own id (see refused_ids)."""
        if self.version not in BATCH_VERSIONS:
            for found in refused_ids(items):
                await self._refuse(
                    refusal(found, mcp_types.INVALID_REQUEST, no_batches(self.version))
                )
            return
        batch = Batch(waiting=[])
        for item in items:
            judged = judge(json.dumps(item).encode("utf-8"))
            if isinstance(judged, Good):
                found = asked_id(item)
                if found is not None:
                    batch.waiting.append(found)
                await self._pass(judged)
            elif isinstance(judged, mcp_types.JSONRPCError):
                batch.answers.append(judged)
        await self.write.hold(batch)

    async def _next_frame(self) -> Frame | None:
        while not self.ready:
            if self.ended:
                return None
            chunk = await self.receive()
            if chunk:
                self.ready.extend(self.framing.feed(chunk))
            else:
                self.ended = True
                self.ready.extend(self.framing.end())
        return self.ready.popleft()

    async def _refuse(self, error: mcp_types.JSONRPCError) -> None:
        log.warning("refused a message: %s", error.error.message)
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self.write.send(SessionMessage(error))


def finish_wait() -> float:
    """FINISH_WAIT, or the seconds MEMIDX_MCP_FINISH_WAIT gives (for tests: a number from 0)."""
    import math
    import os

    try:
        given = float(os.environ.get(FINISH_VARIABLE, ""))
    except ValueError:
        return FINISH_WAIT
    return given if math.isfinite(given) and given >= 0 else FINISH_WAIT


def stdin_receiver(fd: int = 0) -> Receive:
    """What this process's stdin brings, read on a thread of its own: a daemon, so a read that
    waits for ever never holds up the exit (a signal's, or the end of the session)."""
    from memidx.mcp.relay import read_chunk

    send, receive = anyio.create_memory_object_stream[bytes](1)
    token = anyio.lowlevel.current_token()

    def pump() -> None:
        with contextlib.suppress(Exception):  # the loop is gone: nobody is reading
            while chunk := read_chunk(fd):
                anyio.from_thread.run(send.send, chunk, token=token)
        with contextlib.suppress(Exception):
            anyio.from_thread.run_sync(send.close, token=token)

    threading.Thread(target=pump, name="memidx-mcp-stdin", daemon=True).start()

    async def next_chunk() -> bytes:
        try:
            return await receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return b""

    return next_chunk
