"""Query embeddings the shared MCP server starts ahead of their search calls, and their end when
the search will not come: the Searcher's tickets (memidx/search/searcher.py) and one
session's requests (memidx/mcp/ahead.py), with real JSON-RPC messages as the SDK reads them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from memidx.config import Config
from memidx.index.store import Store
from memidx.mcp.ahead import SessionAhead
from memidx.search.searcher import AHEAD, Searcher
from tests.helpers import FakeEmbedder


class _Held(FakeEmbedder):
    """An embedder whose first query waits until let go, so the others queue behind it."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()
        self.started = threading.Event()
        self.queries: list[str] = []

    def embed_query(self, text: str) -> Any:
        self.queries.append(text)
        self.started.set()
        self.go.wait(30)
        return super().embed_query(text)


@pytest.fixture
def held(store: Store, tmp_path: Path) -> Iterator[tuple[Searcher, _Held]]:
    embedder = _Held()
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=embedder.name)
    searcher = Searcher(store, config, _embedder=embedder)
    busy = searcher.embed_ahead("the one embedding")
    assert busy is not None and embedder.started.wait(30)
    try:
        yield searcher, embedder
    finally:
        embedder.go.set()
        busy.future.result(30)


def test_a_forgotten_query_not_yet_embedding_is_never_embedded(
    held: tuple[Searcher, _Held],
) -> None:
    """Its search cancelled, or its session ended: the model embedded it all the same."""
    searcher, embedder = held
    queued = searcher.embed_ahead("cancelled query")
    assert queued is not None
    searcher.forget_ahead(queued)
    embedder.go.set()
    assert queued.future.cancelled()
    kept = searcher.embed_ahead("next query")
    assert kept is not None
    kept.future.result(30)
    assert embedder.queries == ["the one embedding", "next query"]


def test_a_query_two_requests_want_is_cancelled_only_when_both_forget_it(
    held: tuple[Searcher, _Held],
) -> None:
    searcher, _ = held
    first, second = searcher.embed_ahead("shared"), searcher.embed_ahead("shared")
    assert first is second and first is not None
    searcher.forget_ahead(first)
    assert not first.future.cancelled()
    searcher.forget_ahead(first)
    assert first.future.cancelled()


def test_a_query_pushed_out_before_it_started_is_cancelled(
    held: tuple[Searcher, _Held],
) -> None:
    """Nothing takes it any more: its search embeds its own."""
    searcher, _ = held
    tickets = [searcher.embed_ahead(f"query {n}") for n in range(AHEAD + 1)]
    assert tickets[0] is not None and tickets[0].future.cancelled()
    assert not any(t is not None and t.future.cancelled() for t in tickets[1:])


class _Ticket:
    def __init__(self, query: str) -> None:
        self.query = query
        self.over = False

    def done(self) -> bool:
        return self.over


def _message(text: str) -> mcp_types.JSONRPCMessage:
    return mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)


def _search(request: int, query: str) -> mcp_types.JSONRPCMessage:
    return _message(
        f'{{"jsonrpc": "2.0", "id": {request}, "method": "tools/call", '
        f'"params": {{"name": "search", "arguments": {{"query": "{query}"}}}}}}'
    )


def _cancel(request: int) -> mcp_types.JSONRPCMessage:
    return _message(
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", '
        f'"params": {{"requestId": {request}, "reason": "no longer needed"}}}}'
    )


def test_a_session_forgets_a_cancelled_search_and_at_its_end_the_rest() -> None:
    forgotten: list[str] = []
    session = SessionAhead(_Ticket, lambda ticket: forgotten.append(ticket.query))
    for request, query in enumerate(["one", "two", "three", "four"], start=1):
        session.heard(_search(request, query))
    session.tickets[3][0].over = True  # its search took it
    session.heard(_cancel(2))
    session.heard(_cancel(2))  # said twice: forgotten once
    session.heard(_cancel(99))  # no such request
    assert forgotten == ["two"]
    session.heard(_search(5, "five"))  # what is done is no longer kept
    assert sorted(session.tickets) == [1, 4, 5]
    session.end()
    assert forgotten == ["two", "one", "four", "five"]
    assert session.tickets == {}


def test_a_search_cancelled_by_its_id_as_a_string_is_forgotten() -> None:
    """The SDK cancels request 7 for a cancel of "7" (coerce_request_id): its query was
    embedded all the same."""
    forgotten: list[str] = []
    session = SessionAhead(_Ticket, lambda ticket: forgotten.append(ticket.query))
    session.heard(_search(7, "seven"))
    session.heard(_message(
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "7"}}'
    ))  # fmt: skip
    assert (forgotten, session.tickets) == (["seven"], {})


def test_a_search_notification_starts_nothing() -> None:
    """Only a request is answered, so only a request's query is worth embedding."""
    started: list[str] = []

    def start(query: str) -> _Ticket:
        started.append(query)
        return _Ticket(query)

    session = SessionAhead(start, lambda _: None)
    session.heard(_message(
        '{"jsonrpc": "2.0", "method": "tools/call", '
        '"params": {"name": "search", "arguments": {"query": "x"}}}'
    ))  # fmt: skip
    assert started == []


@pytest.mark.parametrize("cancelled", [True, False])
def test_two_requests_with_one_id_are_both_forgotten(
    held: tuple[Searcher, _Held], cancelled: bool
) -> None:
    """A client that sends one id twice (JSON-RPC says it must not): the second request's
    ticket took the first's place, and a cancel, or the session's end, forgot one of two
    wants: the model embedded the query for no search."""
    searcher, embedder = held
    session = SessionAhead(searcher.embed_ahead, searcher.forget_ahead)
    session.heard(_search(1, "twice asked"))
    session.heard(_search(1, "twice asked"))  # the same query: one Ahead, wanted twice
    session.heard(_search(1, "asked once"))  # another query, under the same id
    if cancelled:
        session.heard(_cancel(1))
    else:
        session.end()
    embedder.go.set()
    assert session.tickets == {}
    assert "twice asked" not in searcher._ahead and "asked once" not in searcher._ahead  # pyright: ignore[reportPrivateUsage]
    assert embedder.queries == ["the one embedding"]
