"""Cutting an MCP client's bytes into messages: one per line, however the bytes arrive, and a
message over the limit dropped as it arrives (never held whole) and said once. What each
message is: tests/unit/test_verdict.py."""

from __future__ import annotations

import pytest

from memidx.mcp.framing import MAX_MESSAGE, Frame, Framing, TooLong


def framed(chunks: list[bytes], limit: int = 8) -> list[Frame]:
    framing = Framing(limit)
    frames = [frame for chunk in chunks for frame in framing.feed(chunk)]
    return frames + framing.end()


@pytest.mark.parametrize(
    ("chunks", "frames"),
    [
        ([b"ab\ncd\n"], [b"ab", b"cd"]),
        ([b"a", b"b\nc", b"d\n"], [b"ab", b"cd"]),
        ([b"ab\ncd"], [b"ab", b"cd"]),  # the last message without its newline
        ([b"12345678\n"], [b"12345678"]),  # exactly the limit
        ([b"123456789\nok\n"], [TooLong(9), b"ok"]),
        ([b"12345", b"6789", b"abcdef\nok\n"], [TooLong(9), b"ok"]),  # said once, dropped on
        ([b"123456789", b"abc"], [TooLong(9)]),  # the stream ends inside it
        ([b"\n\n"], [b"", b""]),
        ([b"12345678\r\n"], [b"12345678\r"]),  # exactly the limit, CRLF: its CR not counted
        ([b"12345678\r", b"\nok\n"], [b"12345678\r", b"ok"]),  # the LF in the next chunk
        ([b"1234", b"5678", b"\r", b"\n"], [b"12345678\r"]),
        ([b"12345678\r"], [b"12345678\r"]),  # the stream ends after the CR
        ([b"123456789\r\nok\n"], [TooLong(10), b"ok"]),  # one over, CRLF
        ([b"12345678\r", b"x\nok\n"], [TooLong(10), b"ok"]),  # that CR was no line's end
        ([b"12345678\r\r\n"], [TooLong(10)]),
    ],
)
def test_messages_are_cut_at_newlines_and_a_long_one_is_dropped(
    chunks: list[bytes], frames: list[Frame]
) -> None:
    assert framed(chunks) == frames


def test_a_message_of_exactly_16_mib_sent_with_crlf_passes() -> None:
    """The CR of CRLF framing counted toward the limit: such a message was refused."""
    body = b"x" * MAX_MESSAGE
    assert Framing().feed(body + b"\r\n") == [body + b"\r"]
    assert Framing().feed(body + b"x\r\n") == [TooLong(MAX_MESSAGE + 2)]


def test_a_long_message_is_never_held_whole() -> None:
    framing = Framing(limit=1024)
    assert framing.feed(b"{" + b"x" * 1000) == []
    for _ in range(1000):  # a megabyte more of the same message
        assert framing.feed(b"x" * 1024) in ([], [TooLong(2025)])
        assert len(framing.held) <= 1024
    assert framing.feed(b'x"}\n{"next": 1}\n') == [b'{"next": 1}']
