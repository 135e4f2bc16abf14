"""`memidx mcp --http` checks a request in one order, each check answering before the next
looks: the Host and Origin headers (421, 403), the session (the SDK's 404 for one it does not
know, its 400 for none), then the message. A bad message was judged first, and its error said
to a page of a foreign Origin or to a request for an unknown session. The app memidx serves,
on stub workers, under uvicorn on 127.0.0.1 in this process."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
import uvicorn

from memidx.mcp.http import http_app
from memidx.mcp.serve import Listen
from tests.unit.mcp_stub import echo_server

VERSION = "2025-06-18"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
}}  # fmt: skip
PING = b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}'
BAD = {
    "not JSON": b'{"jsonrpc": "2.0", "id": 2',
    "not UTF-8": b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "x": "caf\xe9"}',
    "too deep": b"[" * 100_000,
    "surrogate": b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"a": "\\ud800"}}',
    "id 1e400": b'{"jsonrpc": "2.0", "id": 1e400, "method": "ping"}',
    "no message": b'{"jsonrpc": "2.0"}',
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class Served:
    """The HTTP app on a port of 127.0.0.1, and one session opened on it."""

    def __init__(self, port: int, session: str) -> None:
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.session = session

    def post(self, body: bytes, **headers: str) -> httpx2.Response:
        with httpx2.Client(timeout=10) as client:
            return client.post(self.url, content=body, headers=HEADERS | headers)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    port = int(listening.getsockname()[1])
    app = http_app(echo_server(), Listen("127.0.0.1", port, None))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, lifespan="on"))
    thread = threading.Thread(target=asyncio.run, args=(server.serve(sockets=[listening]),))
    thread.start()
    try:
        for _ in range(500):  # at most 10 s
            if server.started:
                break
            threading.Event().wait(0.02)
        with httpx2.Client(timeout=10) as client:
            opened = client.post(f"http://127.0.0.1:{port}/mcp", json=INIT, headers=HEADERS)
        yield Served(port, opened.headers["mcp-session-id"])
    finally:
        server.should_exit = True
        thread.join(10)
        listening.close()


def _error(answer: httpx2.Response) -> dict[str, Any]:
    text = answer.text
    if text.startswith("event:"):  # server-sent events: the data line is the answer
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    return json.loads(text)["error"]


def _session(served: Served, which: str) -> dict[str, str]:
    known = {"live": served.session, "unknown": "0123456789abcdef0123456789abcdef"}
    return (
        {"mcp-session-id": known[which], "mcp-protocol-version": VERSION} if which in known else {}
    )


@pytest.mark.parametrize("which", ["live", "unknown", "none"])
def test_a_foreign_origin_or_host_is_refused_before_the_session_and_the_message(
    served: Served, which: str
) -> None:
    """A page of another site (DNS rebinding) learnt what was wrong with its message (400 and
    its JSON-RPC error) or that the session was unknown (404), never only 403."""
    session = _session(served, which)
    for body in [*BAD.values(), PING]:
        assert served.post(body, origin="http://evil.example", **session).status_code == 403
        assert served.post(body, host="evil.example:80", **session).status_code == 421
    assert served.post(PING, origin="http://127.0.0.1:1", **session).status_code != 403


def test_an_unknown_session_gets_the_sdks_404_before_its_message_is_judged(
    served: Served,
) -> None:
    session = _session(served, "unknown")
    for name, body in BAD.items():
        answer = served.post(body, **session)
        assert (answer.status_code, _error(answer)["message"]) == (404, "Session not found"), name


def test_a_missing_session_gets_the_sdks_400_before_its_message_is_judged(
    served: Served,
) -> None:
    """What the SDK answers a good message that is no `initialize` and names no session, a
    bad message gets too (it cannot be the `initialize` that opens a session)."""
    sdk = served.post(PING)
    assert sdk.status_code == 400
    for name, body in BAD.items():
        answer = served.post(body)
        assert (answer.status_code, _error(answer)) == (400, _error(sdk)), name


def test_a_live_sessions_bad_message_is_judged(served: Served) -> None:
    session = _session(served, "live")
    codes = {name: _error(served.post(body, **session))["code"] for name, body in BAD.items()}
    assert codes == {"not JSON": -32700, "not UTF-8": -32700, "too deep": -32700,
                     "surrogate": -32602, "id 1e400": -32600, "no message": -32600}  # fmt: skip


MEDIA = {
    "JSON only accepted": ({"accept": "application/json"}, 406),
    "no Accept": ({"accept": ""}, 406),
    "text sent": ({"content-type": "text/plain"}, 400),  # the SDK's transport security's
    "no Content-Type": ({"content-type": ""}, 400),
    "JSON's cousin sent": ({"content-type": "application/json-seq"}, 415),
}
SESSIONLESS = {"mcp-protocol-version": "2099-01-01"}  # a revision the SDK serves apart


@pytest.mark.parametrize(
    ("which", "media"),
    [(which, media) for which in ("live", "none") for media in MEDIA]
    + [("sessionless", media) for media in MEDIA if media != "JSON's cousin sent"],
)
def test_a_media_type_the_sdk_refuses_gets_its_answer_before_the_message_is_judged(
    served: Served, which: str, media: str
) -> None:
    """The SDK checks Accept (406) and Content-Type (415) before it reads the body: a bad
    message with either got its JSON-RPC error (HTTP 400), which a good one never reached."""
    given, status = MEDIA[media]
    headers = (SESSIONLESS if which == "sessionless" else _session(served, which)) | given
    sdk = served.post(PING, **headers)
    assert sdk.status_code == status
    for name, body in BAD.items():
        answer = served.post(body, **headers)
        assert (answer.status_code, answer.text) == (sdk.status_code, sdk.text), name


def test_a_sessionless_revisions_body_is_judged_under_any_json_content_type(
    served: Served,
) -> None:
    """The SDK's revisions without sessions take any `application/json...`: so does memidx."""
    headers = SESSIONLESS | {"content-type": "application/json-seq"}
    assert _error(served.post(BAD["surrogate"], **headers))["code"] == -32602
