"""Which requests reaching the shared MCP server start their query's embedding early
(memidx/mcp/ahead.py's search_query): search calls that embed, nothing else, never raising."""

from __future__ import annotations

import json

import mcp_types
import pytest

from memidx.mcp.ahead import search_query


def call(name: str, **arguments: object) -> bytes:
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}}  # fmt: skip
    return json.dumps(message).encode()


def heard(line: bytes) -> object:
    """The message the server hears of `line` (memidx/mcp/stdio.py judges it first)."""
    return mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)


@pytest.mark.parametrize("mode", [None, "auto", "hybrid", "vector"])
def test_a_search_that_embeds_gives_its_query(mode: str | None) -> None:
    line = call("search", query="file lock", **({} if mode is None else {"mode": mode}))
    assert search_query(heard(line)) == "file lock"


@pytest.mark.parametrize(
    "line",
    [
        call("search", query="file lock", mode="bm25"),  # words only: nothing to embed
        call("get", ref="notes/search.md"),
        call("search", query=["not", "text"]),
        call("search"),
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"name": "search"}}',
        b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "search"}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", '
        b'"arguments": 3}}',
        b'{"jsonrpc": "2.0", "id": 1, "result": {"name": "search"}}',
    ],
)
def test_anything_else_gives_none(line: bytes) -> None:
    assert search_query(heard(line)) is None
