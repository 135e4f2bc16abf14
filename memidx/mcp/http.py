"""The streamable HTTP transport: uvicorn serving the SDK's app, behind the bearer token when
one is set, each POST's message judged as a line of the stdio transport is
(memidx/mcp/verdict.py), so the two answer a bad message alike.

A request is checked in this order, each check answering before the next looks: the bearer
token (401), the Host and Origin headers on loopback (421, 403: DNS rebinding), the session
id (the SDK's 404 for one it does not know, its 400 for none on a message that cannot open a
session), the Accept and Content-Type headers (the SDK's 406, 415), then the message. Judged
first, a bad message was answered, saying what was wrong with it, to a request from a foreign
Origin, for an unknown session or of a media type the SDK refuses, which a good message never
got past."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from mcp.server import MCPServer
from mcp.server.streamable_http import (
    CONTENT_TYPE_JSON,
    MCP_SESSION_ID_HEADER,
    check_accept_headers,
)
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types import INVALID_REQUEST, JSONRPCError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from memidx.mcp.batch import batch_items
from memidx.mcp.serve import Listen, is_loopback, log
from memidx.mcp.verdict import Dropped, Good, judge, refusal

# The hosts the SDK guards against DNS rebinding, and what it lets in for them.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MISSING_SESSION = "Bad Request: Missing session ID"  # the SDK's words for it


def run_http(server: MCPServer[Any], listen: Listen) -> None:
    """Streamable HTTP on `listen`, every request checked for the bearer token when one is set."""
    import anyio
    import uvicorn

    options = uvicorn.Config(
        http_app(server, listen), host=listen.host, port=listen.port, log_config=None,
        access_log=False, log_level="warning", limit_concurrency=32, timeout_keep_alive=5,
    )  # fmt: skip
    log.info("serving http://%s:%d/mcp", listen.host, listen.port)
    served = _uvicorn_server()(options)
    anyio.run(served.serve)
    served.raise_again()


def http_app(server: MCPServer[Any], listen: Listen) -> Any:
    """The ASGI app: the SDK's, its POSTs judged, behind the Host and Origin checks on loopback
    and the bearer token when one is set."""
    security = transport_security(listen.host)
    sdk = server.streamable_http_app(host=listen.host, transport_security=security)
    app: Any = JudgedPosts(sdk, server.session_manager)
    if security is not None:
        app = _HeaderGuard(app, security)
    return app if listen.token is None else _BearerGuard(app, listen.token)


def transport_security(host: str) -> TransportSecuritySettings | None:
    """The guard against DNS rebinding for a loopback host: only the names a client reaching
    it gives in Host (and Origin) pass. None, no guard, for any other host: a remote server's
    clients name it as they reach it. The SDK guards only its own three hosts; a page of a
    foreign site whose name was made to resolve to 127.0.0.2 or ::1 reached any other."""
    if not is_loopback(host):
        return None
    names = _loopback_names(host)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )


def _loopback_names(host: str) -> list[str]:
    """The names of the loopback `host` in a Host header: the SDK's three for its own hosts
    (localhost reaches 127.0.0.1 and ::1 alike), else the address as given and in its
    shortest form, an IPv6 one in brackets."""
    bare = host.strip("[]")
    if bare in LOOPBACK_HOSTS:
        return ["127.0.0.1", "localhost", "[::1]"]
    address = ipaddress.ip_address(bare)  # is_loopback: "localhost" or an address
    spelled = dict.fromkeys([bare, address.compressed])
    return [f"[{name}]" if address.version == 6 else name for name in spelled]


def _uvicorn_server() -> type[Any]:
    """uvicorn's server, stopping on every stop signal (SIGHUP too) as it does on SIGTERM: it
    shuts down, and once its event loop is gone, raise_again raises the signal for
    memidx.stopping's handler. A SIGHUP that reached that handler inside the event loop cut
    uvicorn's shutdown short (a traceback); uvicorn's own raising of it, inside the loop too,
    left the loop with tasks of the sessions still to end."""
    import signal
    import threading
    from collections.abc import Generator
    from contextlib import contextmanager

    import uvicorn
    from uvicorn.server import HANDLED_SIGNALS

    from memidx.portable_signals import stop_signals

    class Server(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Generator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            wanted = dict.fromkeys([*HANDLED_SIGNALS, *stop_signals()])
            before = {number: signal.signal(number, self.handle_exit) for number in wanted}
            try:
                yield
            finally:
                for number, handler in before.items():
                    signal.signal(number, handler)

        def raise_again(self) -> None:
            """The signals that stopped the server, raised again (last first, as uvicorn)."""
            for number in reversed(self._captured_signals):
                signal.raise_signal(number)

    return Server


class _BearerGuard:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"www-authenticate", b"Bearer")]})  # fmt: skip
                await send({"type": "http.response.body", "body": b"memidx: unauthorized\n"})
                return
        await self.app(scope, receive, send)


class _HeaderGuard:
    """ASGI middleware: a request whose Host or Origin is not the loopback server's gets the
    SDK's 421 or 403 before its session or its message is looked at (the SDK answered an
    unknown session 404 first, and memidx a bad message 400)."""

    def __init__(self, app: Any, settings: TransportSecuritySettings) -> None:
        self.app = app
        self.security = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            from starlette.requests import Request

            refused = await self.security.validate_request(Request(scope), is_post=False)
            if refused is not None:
                log.warning("refused a request: HTTP %d (its Host or Origin)", refused.status_code)
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


class JudgedPosts:
    """ASGI middleware: the message a POST to /mcp carries, judged as stdio judges a line,
    once its session is known. A bad one gets its JSON-RPC error with HTTP 400 (the SDK
    answered a lone surrogate -32700, an id of 1e400 not at all); a notification the SDK
    cannot take, 202 and nothing more. A good message, a batch (the SDK answers it 400), a
    body over the SDK's limit, a request of a session the SDK does not know (it answers 404
    unread) and one whose Accept or Content-Type it refuses (406, 415 unread) go on to the
    SDK as they came; a bad message without a session id, which
    only an `initialize` may lack, gets the SDK's 400 for the missing id."""

    def __init__(
        self, app: Any, sessions: StreamableHTTPSessionManager | None = None,
        limit: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    ) -> None:  # fmt: skip
        self.app = app
        self.sessions = sessions
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        posted = scope.get("type") == "http" and scope.get("method") == "POST"
        if not posted or scope.get("path") != "/mcp" or self._too_long(scope):
            await self.app(scope, receive, send)
            return
        session = self._session(scope)
        if session == "unknown" or self._media_refused(scope):
            await self.app(scope, receive, send)
            return
        events: list[dict[str, Any]] = []
        body, more = bytearray(), True
        while more and len(body) <= self.limit:
            event: dict[str, Any] = await receive()
            events.append(event)
            if event.get("type") != "http.request":
                break
            body += event.get("body", b"")
            more = bool(event.get("more_body", False))
        if not more and batch_items(bytes(body)) is None:
            verdict = judge(bytes(body))
            if session == "missing" and not isinstance(verdict, Good):
                verdict = refusal(None, INVALID_REQUEST, MISSING_SESSION)  # no initialize
            if isinstance(verdict, JSONRPCError):
                log.warning("refused a message: %s", verdict.error.message)
                answer = verdict.model_dump_json(by_alias=True, exclude_unset=True)
                await _respond(send, 400, answer.encode())
                return
            if isinstance(verdict, Dropped):
                log.warning("dropped a notification: %s", verdict.reason)
                await _respond(send, 202, b"")
                return

        async def replay() -> Any:
            return events.pop(0) if events else await receive()

        await self.app(scope, replay, send)

    def _session(self, scope: Any) -> str:
        """The session the request names, as the SDK will find it: "live", "unknown" or
        "missing"; "live" too where there are none (no manager, or a revision without them)."""
        headers = dict(scope.get("headers") or [])
        if self.sessions is None or _sessionless(headers):
            return "live"
        given = headers.get(MCP_SESSION_ID_HEADER.encode("ascii"))
        if given is None:
            return "missing"
        # The SDK's own table (no public way to ask it): a session ended is gone from it.
        known = self.sessions._server_instances  # pyright: ignore[reportPrivateUsage]
        found = known.get(given.decode("latin-1"))
        return "live" if found is not None and not found.is_terminated else "unknown"

    def _media_refused(self, scope: Any) -> bool:
        """Whether the SDK refuses the request's media types before it reads the body, in its
        order: a Content-Type that is no `application/json...` (400, its transport security),
        an Accept without JSON, or without server-sent events unless it answers in JSON
        (406), and under a revision with sessions a Content-Type without `application/json`
        itself (415; its revisions without sessions do not look again)."""
        from starlette.requests import Request

        request = Request(scope)
        given = request.headers.get("content-type", "")
        if not given.lower().startswith(CONTENT_TYPE_JSON):
            return True
        as_json, as_events = check_accept_headers(request)
        json_only = self.sessions is not None and self.sessions.json_response
        if not as_json or not (json_only or as_events):
            return True
        if _sessionless(dict(scope.get("headers") or [])):
            return False
        parts = given.split(";")[0].split(",")
        return all(part.strip() != CONTENT_TYPE_JSON for part in parts)  # the SDK's own test

    def _too_long(self, scope: Any) -> bool:
        """Whether the body says it is over the SDK's limit (the SDK refuses it unread)."""
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        return declared.isdigit() and int(declared) > self.limit


def _sessionless(headers: dict[bytes, bytes]) -> bool:
    """Whether the request names a revision of MCP without sessions (the SDK serves those
    apart): one it does not know as a revision with the `initialize` handshake."""
    revision = headers.get(MCP_PROTOCOL_VERSION_HEADER.encode("ascii"))
    return revision is not None and revision.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS


async def _respond(send: Any, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json")] if body else []
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
