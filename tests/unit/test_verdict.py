"""What a message an MCP client sent is, before the SDK reads it (memidx/mcp/verdict.py, which
the stdio transport, the shared server and HTTP share): a good message, the JSON-RPC error
that answers it, or a notification dropped unanswered. The codes are JSON-RPC 2.0's: text that
parses is never a parse error; a request whose id is no string or integer is a request all the
same (the SDK took it for a notification and never answered); a request whose params hold a
lone surrogate has invalid params."""

from __future__ import annotations

import pytest
from mcp_types import JSONRPCError

from memidx.mcp.framing import TooLong
from memidx.mcp.verdict import (
    BAD_ID,
    BAD_TEXT,
    NOT_JSON,
    NOT_JSONRPC,
    TOO_DEEP,
    TOO_LONG,
    Dropped,
    Good,
    judge,
    refused_ids,
)

CALL = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search", '


@pytest.mark.parametrize(
    ("line", "code", "given", "message"),
    [
        (b"not json", -32700, None, NOT_JSON),
        (b'{"jsonrpc": "2.0", "id": 3', -32700, None, NOT_JSON),
        (b'{"a": ' * 5000 + b"1" + b"}" * 5000, -32700, None, TOO_DEEP),
        (b"[1, 2]", -32600, None, NOT_JSONRPC),
        (b'"ping"', -32600, None, NOT_JSONRPC),
        (b'{"id": "x", "method": 5}', -32600, "x", NOT_JSONRPC),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": 5}', -32600, 7,
         NOT_JSONRPC),
        (b'{"jsonrpc": "1.0", "id": true, "method": "ping"}', -32600, None, NOT_JSONRPC),
        # an id no answer can echo: the message is a request all the same, refused
        (b'{"jsonrpc": "2.0", "id": 1e400, "method": "ping"}', -32600, None, BAD_ID),
        (b'{"jsonrpc": "2.0", "id": -1e400, "method": "ping"}', -32600, None, BAD_ID),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600, None, BAD_ID),
        (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32600, None, BAD_ID),
        (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, None, BAD_ID),
        (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, None, BAD_ID),
        (b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}', -32600, None, BAD_ID),
        # a lone surrogate: in the params, invalid params with the id; elsewhere, no request
        (CALL + b'"arguments": {"query": "\\ud800"}}}', -32602, 3, BAD_TEXT),
        (CALL + b'"arguments": {"\\udfff": "x", "query": "a"}}}', -32602, 3, BAD_TEXT),
        (b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}', -32600, None, NOT_JSONRPC),
        (b'{"jsonrpc": "2.0", "id": 4, "method": "\\ud800"}', -32600, 4, NOT_JSONRPC),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "x", "params": {"a": "\\ud800"}}', -32600,
         None, NOT_JSONRPC),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "x", "params": "\\ud800"}', -32600, 5,
         NOT_JSONRPC),
    ],
)  # fmt: skip
def test_a_bad_message_gets_its_json_rpc_error(
    line: bytes, code: int, given: str | int | None, message: str
) -> None:
    error = judge(line)
    assert isinstance(error, JSONRPCError), error
    assert (error.error.code, error.id, error.error.message) == (code, given, message)


def test_a_good_message_passes_and_a_blank_line_is_no_message() -> None:
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    good = judge(ping)
    assert isinstance(good, Good) and good.text == ping.decode()
    assert isinstance(judge(CALL + b'"arguments": {"query": "\\ud83d\\ude00"}}}'), Good)
    assert isinstance(
        judge(b'{"jsonrpc": "2.0", "id": 100000000000000000000, "method": "ping"}'), Good
    )
    assert judge(b"  \r") is None
    too_long = judge(TooLong(1 << 25))
    assert isinstance(too_long, JSONRPCError)
    assert (too_long.error.code, too_long.id, too_long.error.message) == (-32600, None, TOO_LONG)


def test_a_notification_with_a_lone_surrogate_in_its_params_is_dropped_unanswered() -> None:
    """JSON-RPC never answers a notification: no -32600 with id null for it."""
    line = b'{"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": "\\ud800"}}'
    assert judge(line) == Dropped(BAD_TEXT)
    assert refused_ids([{"jsonrpc": "2.0", "method": "n", "params": {"a": "\ud800"}}]) == []
