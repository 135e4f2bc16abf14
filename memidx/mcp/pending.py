"""The requests a `memidx mcp` front relayed to the shared server and has not seen answered
(pure: lines in, ids out). The front looks at the server only while one waits (memidx/mcp/
relay.py), and answers those left with an error when the server it relayed them to is ended.
Only what tells a request's id is read: the rest of each message is the server's to judge."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import cast

from memidx.mcp.framing import MAX_MESSAGE, Frame, Framing, TooLong
from memidx.text import is_utf8

MAX_LINE = MAX_MESSAGE + 2  # and its line end: a longer one is refused
Key = tuple[str, str | int]  # an id and its type: 1 and "1" are two requests
HEAD = 4096  # the bytes kept of an answer line too long to read, to read its id from
# A response as the server writes it: its id before its result or error
_RESPONSE = re.compile(rb'[ \t\r]*\{"jsonrpc": ?"2\.0", ?"id": ?')
_RESULT = re.compile(r'[ \t\r]*, ?"(?:result|error)":')


class Pending:
    """Request ids sent and not answered, from the bytes each way."""

    def __init__(self) -> None:
        self.ids: dict[Key, str | int] = {}
        self._sent = Framing(MAX_LINE - 2)  # as the server cuts them: a line over its limit
        # that ended in the chunk that took it there was read, the server refusing it id null
        self._answered = _Lines()
        self._unread: set[Key] = set()  # waiting while an answer line too long to read came
        self._sent_count = 0  # requests heard so far
        self._order: dict[Key, int] = {}  # the count each waiting request was heard at
        self._line_began = 0  # the count when the server's answer line in progress began
        self._line_marked = False  # its waiting requests are in _unread (once a line)

    def __bool__(self) -> bool:
        return bool(self.ids)

    def sent(self, chunk: bytes) -> None:
        """The client's bytes, on their way to the server."""
        self._heard(self._sent.feed(chunk))

    def input_ended(self) -> None:
        """The client's input ended: its last line, without a newline, is a message too (the
        server serves it, memidx/mcp/framing.py)."""
        self._heard(self._sent.end())

    def _heard(self, frames: Sequence[Frame]) -> None:
        lines = [frame for frame in frames if not isinstance(frame, TooLong)]
        for message in (found for line in lines for found in _read(line)):
            method = message.get("method")
            if method == "notifications/cancelled" and "id" not in message:  # MCP: a cancelled
                # request is never answered; with an id, the server takes it for no notification
                params = message.get("params")
                if isinstance(params, dict):
                    self._forget(cast(dict[str, object], params).get("requestId"))
            elif method is not None and (key := _key(message.get("id"))) is not None:
                self.ids[key] = key[1]
                self._sent_count += 1
                self._order[key] = self._sent_count
                self._unread.discard(key)  # a request again: no line begun before answers it

    def answered(self, chunk: bytes) -> None:
        """The server's bytes, on their way to the client."""
        begins = b"\n" in chunk or not (self._answered.part or self._answered.over)
        for message in self._answered.messages(chunk):
            if "method" not in message:
                self._forget(message.get("id"))
        if begins:  # the line this chunk leaves open began in it
            self._line_began, self._line_marked = self._sent_count, False
        if self._answered.over and not self._line_marked:  # a line too long to read may
            # answer those waiting when it began, never one sent while it came (the server
            # answers only what it has read); one response answers the id it starts with
            began, self._line_marked = self._line_began, True
            if _head_id(self._answered.head) is not None:
                return
            self._unread.update(key for key, at in self._order.items() if at <= began)

    def unanswered(self) -> list[str | int]:
        """The ids no answer was seen for, but those an answer line too long to read (past
        MAX_LINE, skipped) may have answered: a request sent after it still counts (a skipped
        line once made the front take every request left as answered, for the session)."""
        return [value for key, value in self.ids.items() if key not in self._unread]

    def mid_line(self) -> bool:
        """Whether the server's last bytes ended inside a line."""
        return bool(self._answered.part) or self._answered.over

    def _forget(self, value: object) -> None:
        if (key := _key(value)) is not None:
            self.ids.pop(key, None)
            self._order.pop(key, None)
            self._unread.discard(key)


def _key(value: object) -> Key | None:
    if isinstance(value, str) and is_utf8(value):  # "\ud800": the server answers it id null
        return ("str", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ("int", value)
    return None


class _Lines:
    """Whole lines out of chunks, each read as JSON-RPC messages (a batch's members too)."""

    def __init__(self) -> None:
        self.part = bytearray()
        self.over = False  # the line so far is past MAX_LINE: skipped to its end
        self.head = b""  # its first bytes

    def messages(self, chunk: bytes) -> list[dict[str, object]]:
        found: list[dict[str, object]] = []
        *lines, rest = chunk.split(b"\n")
        for line in lines:
            if not self.over:
                self.part += line
                found += _read(bytes(self.part))
            elif (key := _head_id(self.head)) is not None:  # a response, now all relayed
                found.append({"id": key[1]})
            self.part.clear()
            self.over = False
        if not self.over:
            self.part += rest
            if len(self.part) > MAX_LINE:
                self.head = bytes(self.part[:HEAD])
                self.part.clear()
                self.over = True
        return found


def _read(line: bytes) -> list[dict[str, object]]:
    """The messages of a line, as the server reads it (memidx/mcp/verdict.py): UTF-8 alone,
    no BOM. json.loads took a BOM from bytes, UTF-16 and bytes no UTF-8 holds (a lone
    surrogate's), so a request the server refuses with id null stayed waiting: at the
    session's end it got the error of a server that died, and the front exited 1."""
    try:
        value: object = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return []
    members = cast(list[object], value) if isinstance(value, list) else [value]
    return [cast(dict[str, object], m) for m in members if isinstance(m, dict)]


def _head_id(head: bytes) -> Key | None:
    """The id of an answer line too long to read, from its first bytes, when it is one
    response as the server writes it (`{"jsonrpc":"2.0","id":7,"result":`); None for a
    batch of them, or anything else."""
    start = _RESPONSE.match(head)
    if start is None:
        return None
    text = head[start.end() :].decode("utf-8", "surrogateescape")
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):  # `[[[...`: a broken server's, read as no id
        return None
    return _key(cast(object, value)) if _RESULT.match(text, end) else None
