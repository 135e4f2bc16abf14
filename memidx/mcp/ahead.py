"""The query embeddings the shared server starts as a session's search calls arrive, before the
SDK has read them (Searcher.embed_ahead), by request: one the client cancels
(`notifications/cancelled`) is cancelled too, and so is every one still waiting when its
session ends, so the model never embeds a query whose search will not be answered. An
embedding that has started runs to its end (its thread cannot be stopped)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar, cast

import mcp_types
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params

RequestId = str | int


class Ticket(Protocol):
    """What embed_ahead gives for one query (memidx.search.searcher.Ahead)."""

    def done(self) -> bool: ...


T = TypeVar("T", bound=Ticket)


class SessionAhead(Generic[T]):
    """The embeddings started for one session's search calls, by request id, until done."""

    def __init__(self, start: Callable[[str], T | None], forget: Callable[[T], None]) -> None:
        self.start = start  # starts a query's embedding: Workers.embed_ahead
        self.forget = forget  # its search will not come: Workers.forget_ahead
        # a list per id: a client that sends two requests with one id (JSON-RPC says it must
        # not) got one ticket kept, the other never forgotten on a cancel or the session's end
        self.tickets: dict[RequestId, list[T]] = {}

    def heard(self, message: mcp_types.JSONRPCMessage) -> None:
        """A message of the session, as it arrives (memidx/mcp/stdio.py's `heard`)."""
        if isinstance(message, mcp_types.JSONRPCRequest):
            query = search_query(message)
            ticket = self.start(query) if query is not None else None
            if ticket is not None:
                self.tickets = {k: kept for k, t in self.tickets.items() if (kept := _live(t))}
                # as the SDK finds the request a cancel names: "7" is 7 (a search so
                # cancelled embedded on)
                self.tickets.setdefault(coerce_request_id(message.id), []).append(ticket)
        elif (
            isinstance(message, mcp_types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
        ):
            found = cancelled_request_id_from_params(message.params)
            named = None if found is None else coerce_request_id(found)
            for ticket in self.tickets.pop(named, []) if named is not None else []:
                self.forget(ticket)

    def end(self) -> None:
        """The session ended: no search of it is coming any more."""
        tickets, self.tickets = self.tickets, {}
        for ticket in (t for kept in tickets.values() for t in kept):
            self.forget(ticket)


def _live(tickets: list[T]) -> list[T]:
    """The tickets whose embedding is not over."""
    return [t for t in tickets if not t.done()]


def search_query(message: object) -> str | None:
    """The query of a JSON-RPC `tools/call` of `search` that will embed it (mode auto, hybrid
    or vector), else None; never raises (the SDK judges the message, not this)."""
    if getattr(message, "method", None) != "tools/call":
        return None
    params = _fields(getattr(message, "params", None))
    arguments = _fields(params.get("arguments")) if params.get("name") == "search" else {}
    query, mode = arguments.get("query"), arguments.get("mode", "auto")
    return query if isinstance(query, str) and mode in ("auto", "hybrid", "vector") else None


def _fields(value: object) -> dict[str, object]:
    return cast(dict[str, object], value) if isinstance(value, dict) else {}
