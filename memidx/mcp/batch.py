"""JSON-RPC batches (a JSON array of messages on one line) in an MCP session over a stream.
MCP's 2025-03-26 revision says an implementation MUST receive them; 2025-06-18 removed them,
and every later revision's message is one object. So a session that negotiated 2025-03-26 has
its batch served: the messages go to the SDK one by one, and the answers to its requests go
back as one array once all are in, its notifications unanswered. Under any other revision (or
before the handshake) each request of a batch is answered -32600 with its own id, so that no
client waits for ever on one of them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, cast

import anyio
import mcp_types
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

BATCH_VERSIONS = frozenset({"2025-03-26"})  # the protocol revisions that have batches
Answer = mcp_types.JSONRPCResponse | mcp_types.JSONRPCError
RequestId = str | int
MAX_UNWANTED = 1024  # cancelled requests whose answer is still dropped if it comes


def no_batches(version: str | None) -> str:
    """The message of the error each request of a batch gets where batches are not served."""
    under = f"MCP {version}" if version else "a session before its initialize handshake"
    return (
        f"Invalid Request: a JSON-RPC batch is not served under {under} (only 2025-03-26 has "
        "batches): send one message per line"
    )


def batch_items(frame: bytes) -> list[object] | None:
    """The messages of a batch, when `frame` is a JSON array of at least one; else None."""
    if not re.match(rb"[ \t\r\n]*\[", frame):  # looked at without copying a long message
        return None
    try:  # decoded as UTF-8 first: json.loads reads bytes as UTF-16 or -32 too, and surrogates
        found: object = json.loads(frame.decode("utf-8"))
    except (ValueError, RecursionError):  # no UTF-8, too deep: judged as one message, -32700
        return None
    return cast(list[object], found) if isinstance(found, list) and found else None


def negotiated(text: str) -> str | None:
    """The protocol revision an `initialize` request will get (the SDK's choice: the one the
    client asks for when the SDK has it, else its latest); None for any other message."""
    if '"initialize"' not in text:  # no need to parse every message, some of them 16 MiB
        return None
    try:
        message: object = json.loads(text)
    except ValueError:
        return None
    if not isinstance(message, dict):
        return None
    fields = cast(dict[str, object], message)
    params = fields.get("params")
    if fields.get("method") != "initialize" or "id" not in fields or not isinstance(params, dict):
        return None
    asked = cast(dict[str, object], params).get("protocolVersion")
    return (
        asked
        if isinstance(asked, str) and asked in HANDSHAKE_PROTOCOL_VERSIONS
        else LATEST_HANDSHAKE_VERSION
    )


@dataclass(slots=True)
class Batch:
    """A batch being served: the ids of its requests not yet answered, the answers so far."""

    waiting: list[str | int]
    answers: list[Answer] = field(default_factory=list[Answer])


class BatchAnswer:
    """The answers of one batch as the transport writes a message: one JSON array."""

    def __init__(self, answers: list[Answer]) -> None:
        self.answers = answers

    def model_dump_json(self, **options: Any) -> str:
        return "[" + ",".join(a.model_dump_json(**options) for a in self.answers) + "]"


class Answers:
    """The session's write stream as the SDK sees it. It knows the requests the SDK has not
    answered yet: an answer to a request of a batch being served is held until the batch's
    last one, then the batch's answers go as one array; a request the client cancelled is
    waited for no more (nor is its answer sent, when one still comes); and once the client's
    stream ended, `finish` waits for the answers to the requests in progress."""

    def __init__(self, write: Any) -> None:
        self.write = write
        self.batches: list[Batch] = []
        # requests the SDK has, unanswered, in order: how many by id (a client may send two
        # with one id; the SDK answers each)
        self.asked: dict[RequestId, int] = {}
        self.unwanted: dict[RequestId, None] = {}  # cancelled: an answer still coming is not sent
        self.quiet = anyio.Event()  # set when no request waits for its answer

    def take(self, found: RequestId) -> None:
        """A request with id `found` goes to the SDK (the last taken last, as the SDK keeps)."""
        self.asked[found] = self.asked.pop(found, 0) + 1
        self.unwanted.pop(found, None)

    async def cancel(self, named: RequestId) -> None:
        """The client cancelled request `named`: MCP says it gets no answer; a batch holding it
        goes without it (and is sent when the rest of it is in). The SDK cancels the last
        request whose id reads as the same (coerce_request_id: "7" is 7): taken literally, a
        cancel of "7" left 7 waited for, its batch never sent, the session's end held."""
        same = [one for one in self.asked if coerce_request_id(one) == coerce_request_id(named)]
        if not same:
            return  # answered already, or never asked
        found = same[-1]
        self._answered(found)
        if found in self.asked:  # another with its id goes on: its answer is sent (both
            return  # were dropped, and the client waited for ever on the one not cancelled)
        self.unwanted[found] = None
        while len(self.unwanted) > MAX_UNWANTED:
            del self.unwanted[next(iter(self.unwanted))]
        for batch in self.batches:
            if found in batch.waiting:
                batch.waiting.remove(found)
                if not batch.waiting:
                    self.batches.remove(batch)
                    if batch.answers:
                        await self._send_batch(batch)
                return

    async def finish(self, wait: float) -> None:
        """Wait up to `wait` seconds for the answers to every request the SDK has (the client's
        stream ended, and the SDK cancels what is still in progress when it hears so)."""
        with anyio.move_on_after(wait):
            while self.asked:
                self.quiet = anyio.Event()
                await self.quiet.wait()

    def _answered(self, found: RequestId) -> None:
        """One request with id `found` answered (or cancelled)."""
        count = self.asked.get(found, 0)
        if count > 1:
            self.asked[found] = count - 1
        else:
            self.asked.pop(found, None)
        if not self.asked:
            self.quiet.set()

    async def hold(self, batch: Batch) -> None:
        """Serve `batch` (its refusals already among its answers) as its requests are answered;
        one it cancels itself is not waited for."""
        batch.waiting = [found for found in batch.waiting if found in self.asked]
        if batch.waiting:
            self.batches.append(batch)
        elif batch.answers:
            await self._send_batch(batch)

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if not isinstance(message, Answer) or message.id is None:
            await self.write.send(item)
            return
        if message.id in self.unwanted:
            del self.unwanted[message.id]
            return  # the client cancelled it
        try:
            await self._send_answer(message, item)
        finally:  # only once written: the end of the session then cancels no write of it
            self._answered(message.id)

    async def _send_answer(self, message: Answer, item: SessionMessage) -> None:
        for batch in self.batches:
            if message.id in batch.waiting:
                batch.waiting.remove(message.id)
                batch.answers.append(message)
                if not batch.waiting:
                    self.batches.remove(batch)
                    await self._send_batch(batch)
                return
        await self.write.send(item)

    async def _send_batch(self, batch: Batch) -> None:
        await self.write.send(SessionMessage(cast(Any, BatchAnswer(batch.answers))))

    async def aclose(self) -> None:
        await self.write.aclose()

    async def __aenter__(self) -> Answers:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
