"""The HTTP app's guard against DNS rebinding (memidx/mcp/http.py) on every loopback host it
may listen on, not only the SDK's own three: a page of a foreign site whose name was made to
resolve to 127.0.0.2 reached a server listening there with no Host or Origin check. In this
process on stub workers, through the app's ASGI interface (no socket)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest

from memidx.mcp.http import http_app, transport_security
from memidx.mcp.serve import Listen
from tests.unit.mcp_stub import echo_server

INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
}}).encode()  # fmt: skip
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
PORT = 8765


async def _statuses(host: str, named: str) -> list[int]:
    """What the app listening on `host` answers an `initialize` whose Host is `named`, one of
    a foreign name, and one from a page of a foreign Origin."""
    app = http_app(echo_server(), Listen(host, PORT, None))
    starlette: Any = app
    while not hasattr(starlette, "router"):  # the SDK's app, under memidx's middleware
        starlette = starlette.app
    url = f"http://{named}:{PORT}"
    async with (
        starlette.router.lifespan_context(starlette),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url=url) as client,
    ):
        asked = [
            {},
            {"host": f"evil.example:{PORT}"},
            {"origin": "http://evil.example"},
            {"origin": f"http://{named}:{PORT}"},
        ]
        return [
            (await client.post("/mcp", content=INIT, headers=HEADERS | more)).status_code
            for more in asked
        ]


@pytest.mark.parametrize(
    ("host", "named"),
    [
        ("127.0.0.2", "127.0.0.2"),
        ("127.1.2.3", "127.1.2.3"),
        ("0:0:0:0:0:0:0:1", "[::1]"),
        ("0:0:0:0:0:0:0:1", "[0:0:0:0:0:0:0:1]"),
        ("[::1]", "[::1]"),
        ("::1", "[::1]"),
        ("localhost", "localhost"),
        ("127.0.0.1", "127.0.0.1"),
    ],
)
def test_every_loopback_host_lets_in_only_its_own_names(host: str, named: str) -> None:
    assert anyio.run(_statuses, host, named) == [200, 421, 403, 200]


def test_a_loopback_host_is_not_reached_under_another_loopback_name() -> None:
    """A server on 127.0.0.2 is named so by its clients: localhost never reaches it."""
    security = transport_security("127.0.0.2")
    assert security is not None
    assert security.allowed_hosts == ["127.0.0.2:*"]
    assert security.allowed_origins == ["http://127.0.0.2:*"]


def test_a_remote_host_gets_no_guard() -> None:
    """Its clients name it as they reach it; --allow-remote's bearer token guards it."""
    assert transport_security("192.168.1.20") is None
    assert transport_security("0.0.0.0") is None
