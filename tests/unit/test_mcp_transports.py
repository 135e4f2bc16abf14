"""The stdio session (memidx/mcp/stdio.py, as `memidx mcp --own` and the shared server run it)
and the HTTP app (memidx/mcp/http.py), in this process on stub workers: the same bad message
gets the same JSON-RPC error on both. The SDK's HTTP answered a lone surrogate in a tool's
arguments -32700 where stdio answered -32600 (JSON-RPC 2.0: the text parses, the request is
one, its params are invalid: -32602 with its id), and on both took a request with an id of
1e400 for a notification and never answered it (-32600, id null: no answer can echo it).
Bytes that are no UTF-8 stdio read as U+FFFD and served, where HTTP answered -32700: MCP says
its messages MUST be UTF-8, so both answer -32700, to a batch too."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest

from memidx.mcp.http import JudgedPosts, http_app
from memidx.mcp.serve import Listen
from memidx.mcp.stdio import run_session
from tests.unit.mcp_stub import echo_server

VERSION = "2025-06-18"
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
}}).encode()  # fmt: skip
INITIALIZED = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'
SURROGATE = (
    b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", '
    b'"params": {"name": "search", "arguments": {"query": "\\ud800"}}}'
)
HUGE_ID = b'{"jsonrpc": "2.0", "id": 1e400, "method": "ping"}'
DROPPED = b'{"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": "\\ud800"}}'
PING = b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}'
# Latin-1 where UTF-8 must be: stdio read it as U+FFFD and searched "caf\ufffd", HTTP -32700.
NOT_UTF8 = (
    b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", '
    b'"params": {"name": "search", "arguments": {"query": "caf\xe9"}}}'
)
# The same rule for a batch: stdio read a UTF-16 one, and one of encoded surrogates (which
# Python's json reads from bytes), as a batch of good messages, where HTTP answered -32700.
UTF16_BATCH = (b"[" + PING + b"]").decode("ascii").encode("utf-16-le")
SURROGATE_BATCH = (
    b'[{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"a": "\xed\xa0\x80"}}]'
)
ANSWERS = [(3, -32602), (None, -32600), (None, -32700), (9, None), (None, -32700), (None, -32700)]
Answer = tuple[object, object]


def _answer(message: dict[str, Any]) -> Answer:
    return message.get("id"), message.get("error", {}).get("code")


class Out:
    """The session's standard output: the lines it writes."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    async def write(self, text: str) -> None:
        self.lines.append(text)

    async def flush(self) -> None:
        pass


async def _over_stdio(messages: list[bytes]) -> list[Answer]:
    chunks = [INIT + b"\n" + INITIALIZED + b"\n", *(m + b"\n" for m in messages)]

    async def receive() -> bytes:
        return chunks.pop(0) if chunks else b""

    out = Out()
    lowlevel: Any = echo_server()._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    await run_session(lowlevel, receive, out)
    answers = [json.loads(line) for text in out.lines for line in text.splitlines()]
    return [_answer(a) for a in answers if a.get("id") != 1]


async def _over_http(messages: list[bytes]) -> list[Answer]:
    app = http_app(echo_server(), Listen("127.0.0.1", 8765, None))
    starlette: Any = app
    while not hasattr(starlette, "router"):  # the SDK's app, under memidx's middleware
        starlette = starlette.app
    headers = {"accept": "application/json, text/event-stream",
               "content-type": "application/json"}  # fmt: skip
    transport = httpx2.ASGITransport(app=app)
    answers: list[Answer] = []
    async with (
        starlette.router.lifespan_context(starlette),
        httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client,
    ):
        opened = await client.post("/mcp", content=INIT, headers=headers)
        headers |= {"mcp-session-id": opened.headers["mcp-session-id"],
                    "mcp-protocol-version": VERSION}  # fmt: skip
        assert (await client.post("/mcp", content=INITIALIZED, headers=headers)).status_code == 202
        for message in messages:
            got = await client.post("/mcp", content=message, headers=headers)
            if got.status_code == 202:
                continue
            text = got.text
            if text.startswith("event:"):  # server-sent events: the data line is the answer
                text = next(ln[5:] for ln in text.splitlines() if ln.startswith("data:"))
            answers.append(_answer(json.loads(text)))
    return answers


@pytest.mark.parametrize("transport", [_over_stdio, _over_http], ids=["stdio", "http"])
def test_both_transports_answer_a_bad_message_alike(transport: Any) -> None:
    sent = [SURROGATE, HUGE_ID, DROPPED, NOT_UTF8, PING, UTF16_BATCH, SURROGATE_BATCH]
    answers = anyio.run(transport, sent)  # DROPPED gets no answer
    assert sorted(answers, key=repr) == sorted(ANSWERS, key=repr)


async def _posted(chunks: list[bytes], declared: int | None = None) -> tuple[bytes, list[Any]]:
    """What the SDK's app (a recorder here) reads of a POST made of `chunks`, and what was sent
    back when it never saw it."""
    seen: list[bytes] = []
    sent: list[Any] = []

    async def sdk(scope: Any, receive: Any, send: Any) -> None:
        more = True
        while more:
            event = await receive()
            seen.append(event.get("body", b""))
            more = event.get("more_body", False)

    async def receive() -> dict[str, Any]:
        body = chunks.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(chunks)}

    async def send(message: Any) -> None:
        sent.append(message)

    headers = [(b"accept", b"application/json, text/event-stream"),
               (b"content-type", b"application/json")]  # fmt: skip
    headers += [] if declared is None else [(b"content-length", str(declared).encode())]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    await JudgedPosts(sdk, limit=64)(scope, receive, send)
    return b"".join(seen), sent


def test_the_sdk_reads_a_post_as_it_came_unless_it_was_answered() -> None:
    """A good message, a batch and a body over the limit reach the SDK whole, in any chunks;
    a bad one is answered 400 and never reaches it."""
    for chunks in ([PING], [PING[:5], PING[5:20], PING[20:]], [b"[" + PING + b"]"]):
        assert anyio.run(_posted, list(chunks)) == (b"".join(chunks), [])
    long = [b"x" * 50, b"y" * 50, b"z" * 50]
    assert anyio.run(_posted, list(long)) == (b"".join(long), [])
    assert anyio.run(_posted, list(long), 150) == (b"".join(long), [])  # declared over the limit
    seen, sent = anyio.run(_posted, [HUGE_ID[:10], HUGE_ID[10:]])
    assert seen == b"" and sent[0]["status"] == 400
    assert json.loads(sent[1]["body"])["error"]["code"] == -32600
