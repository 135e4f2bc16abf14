"""Cutting the bytes an MCP client sends into messages: one JSON-RPC message per line (the
stdio transport's framing, which the shared server's socket uses too), each at most
MAX_MESSAGE bytes, its newline not counted, nor a CR before it (CRLF framing). A longer one is
never held whole: once over the limit it is dropped as it arrives, up to its newline, and said
to be too long once; the next line is a message again."""

from __future__ import annotations

from dataclasses import dataclass

MAX_MESSAGE = 16 * 1024 * 1024  # one JSON-RPC message, its newline and a CR before it not counted


@dataclass(frozen=True, slots=True)
class TooLong:
    """A message over the limit, dropped (how many bytes of it had arrived when it was)."""

    seen: int


Frame = bytes | TooLong


class Framing:
    """Messages out of chunks of bytes: feed() each chunk, end() at the end of the stream."""

    def __init__(self, limit: int = MAX_MESSAGE) -> None:
        self.limit = limit
        self.held = bytearray()  # the message in progress, at most `limit` bytes
        self.dropping = False  # inside a message over the limit, until its newline

    def feed(self, chunk: bytes) -> list[Frame]:
        """The messages `chunk` completes, in order, and a TooLong where one went over."""
        frames: list[Frame] = []
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not self.dropping:
                if not self._fits(piece):
                    frames.append(TooLong(len(self.held) + len(piece)))
                    self.held.clear()
                    self.dropping = True
                else:
                    self.held += piece
            if end < 0:
                break
            if not self.dropping:
                frames.append(bytes(self.held))
            self.held.clear()
            self.dropping = False
            start = end + 1
        return frames

    def _fits(self, piece: bytes) -> bool:
        """Whether the message is within the limit with `piece` added: one byte over only when
        it is a CR, which the newline that ends the message may follow (CRLF framing)."""
        size = len(self.held) + len(piece)
        last = piece[-1:] or self.held[-1:]
        return size <= self.limit or (size == self.limit + 1 and last == b"\r")

    def end(self) -> list[Frame]:
        """The last message, when the stream ended without its newline."""
        last = bytes(self.held)
        self.held.clear()
        self.dropping = False
        return [last] if last.strip() else []
