"""What one message a client sent is, before the SDK reads it (over stdio, the shared server's
socket and HTTP alike): a good JSON-RPC message, the error that answers it, or a notification
that is dropped unanswered. The SDK dropped a bad message without an answer over stdio, and
over HTTP answered it with other codes. JSON-RPC 2.0's codes: -32700 for text that is not
JSON, and for bytes that are no UTF-8 (MCP: JSON-RPC messages MUST be UTF-8 encoded; the SDK
read them as U+FFFD over stdio, so a note a tool wrote held that character instead, and
answered -32700 over HTTP); -32600 for JSON that is no request, notification or response, and
for an id that is not a string or an integer (`1e400`, `1.5`, `null`, `true`: the message has
an id, so it is no notification, but none can be echoed, so the error's id is null); -32602
for a request whose params hold a string no UTF-8 can write (a lone surrogate, `"\\ud800"`),
its id echoed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

import mcp_types
from pydantic import ValidationError

from memidx.mcp.framing import MAX_MESSAGE, Frame, TooLong
from memidx.text import is_utf8

NOT_JSON = "Parse error: the message is not JSON"
NOT_UTF8 = "Parse error: the message is not UTF-8 (byte {byte:#04x} at offset {offset})"
TOO_DEEP = "Parse error: the message is nested too deeply to be read"
NOT_JSONRPC = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
TOO_LONG = f"Invalid Request: a message over {MAX_MESSAGE} bytes (16 MiB) is refused"
BAD_ID = "Invalid Request: an id must be a string or an integer"
BAD_TEXT = (
    "Invalid params: a string holds a lone surrogate (such as \\ud800), which is no Unicode "
    "text: escape a character outside the BMP as a surrogate pair"
)


@dataclass(frozen=True, slots=True)
class Good:
    """A message the SDK will take: its text, and what it is."""

    text: str
    message: mcp_types.JSONRPCMessage


@dataclass(frozen=True, slots=True)
class Dropped:
    """A notification the SDK cannot take: JSON-RPC never answers a notification."""

    reason: str


Verdict = Good | mcp_types.JSONRPCError | Dropped | None


def judge(frame: Frame) -> Verdict:
    """A good message, else the error that answers it, or Dropped; None for a blank line."""
    if isinstance(frame, TooLong):
        return refusal(None, mcp_types.INVALID_REQUEST, TOO_LONG)
    try:
        text = frame.decode("utf-8")
    except UnicodeDecodeError as exc:
        found = NOT_UTF8.format(byte=exc.object[exc.start], offset=exc.start)
        return refusal(None, mcp_types.PARSE_ERROR, found)
    if not text.strip():
        return None
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError:
        return _refused(text)
    if isinstance(message, mcp_types.JSONRPCNotification) and "id" in _members(text):
        # The SDK read a request whose id is no string or integer as a notification, and
        # its client waited for ever for the answer.
        return refusal(None, mcp_types.INVALID_REQUEST, BAD_ID)
    return Good(text, message)


def _refused(text: str) -> Verdict:
    """The answer to a message the SDK refuses."""
    try:
        loaded: object = json.loads(text)
    except ValueError:
        return refusal(None, mcp_types.PARSE_ERROR, NOT_JSON)
    except RecursionError:
        return refusal(None, mcp_types.PARSE_ERROR, TOO_DEEP)
    fields = cast(dict[str, object], loaded) if isinstance(loaded, dict) else {}
    rest = {name: value for name, value in fields.items() if name != "params"}
    if _holds_surrogate(fields.get("params")) and not _holds_surrogate(rest):
        scrubbed = {**rest, "params": _scrubbed(fields["params"])}
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_python(scrubbed, by_name=False)
        except ValidationError:
            pass
        else:
            if isinstance(message, mcp_types.JSONRPCRequest):
                return refusal(message.id, mcp_types.INVALID_PARAMS, BAD_TEXT)
            if isinstance(message, mcp_types.JSONRPCNotification) and "id" not in fields:
                return Dropped(BAD_TEXT)
    return refusal(request_id(cast(object, loaded)), mcp_types.INVALID_REQUEST, NOT_JSONRPC)


def _members(text: str) -> dict[str, object]:
    """The members of the JSON object `text` ({} for anything else)."""
    try:
        loaded: object = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return cast(dict[str, object], loaded) if isinstance(loaded, dict) else {}


def _holds_surrogate(value: object) -> bool:
    """Whether a string of `value` (a key too, at any depth) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and not is_utf8(item):
            return True
        if isinstance(item, dict):
            stack.extend(cast(dict[object, object], item).items())
        elif isinstance(item, list | tuple):
            stack.extend(cast(list[object], item))
    return False


def _scrubbed(value: object) -> object:
    """`value` with each lone surrogate replaced, to see what else the message is."""
    text = json.dumps(value, ensure_ascii=False).encode("utf-8", "replace").decode("utf-8")
    return json.loads(text)


def refused_ids(items: list[object]) -> list[str | int | None]:
    """The ids a batch not served is refused with: each request's own; one null id when some
    member is no message at all; nothing for its notifications and responses, which JSON-RPC
    never answers (a batch of notifications alone gets no answer)."""
    ids: list[str | int | None] = [found for found in map(asked_id, items) if found is not None]
    unanswerable = any(
        asked_id(item) is None
        and isinstance(judge(json.dumps(item).encode()), mcp_types.JSONRPCError)
        for item in items
    )
    return ids + [None] * unanswerable


def request_id(message: object) -> str | int | None:
    """The id of a would-be request, when it has one of the kinds an id may be."""
    if not isinstance(message, dict):
        return None
    found = cast(dict[str, object], message).get("id")
    if isinstance(found, bool):  # JSON's true and false are no ids, though Python's ints
        return None
    if isinstance(found, str) and not is_utf8(found):
        # A lone surrogate (`"\ud800"`), which json reads and no UTF-8 can write: echoed in
        # the refusal, it failed the session's writer and ended the session.
        return None
    return found if isinstance(found, str | int) else None


def asked_id(item: object) -> str | int | None:
    """The id a message of a batch is answered with: a would-be request's, never a response's
    (the client answering a request of the server's gets no answer)."""
    fields = cast(dict[str, object], item) if isinstance(item, dict) else {}
    return None if "result" in fields or "error" in fields else request_id(cast(object, item))


def refusal(given: str | int | None, code: int, message: str) -> mcp_types.JSONRPCError:
    return mcp_types.JSONRPCError(
        jsonrpc="2.0", id=given, error=mcp_types.ErrorData(code=code, message=message)
    )
