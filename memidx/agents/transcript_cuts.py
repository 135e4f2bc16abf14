"""A transcript cut into its parts as it is read (memidx.agents.capture.transcript_parts), a
part at a time: a copy a hook left (memidx.agents.archive_left) was read whole, decoded, cut
and masked in memory, and a 64 MiB copy took 222 MB to file. The bytes are read twice from
their source, a part's size at a time: once to find the cuts (and how many parts there are,
which each part's tag says), once to hand each part over as it is filed. Each part is redacted
alone as it is filed, and a secret a cut runs through was a secret to neither half: the
detectors read each cut with memidx.secrets.cuts.REACH characters either side, and every
secret they find there is masked in full in each part it falls in (memidx.agents.part_cuts)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

from memidx.frozen import Value

if TYPE_CHECKING:
    from memidx.secrets.patterns import Finding


Seen = Callable[[bytes], None]  # told each piece's bytes as the cuts are found


class Source(Protocol):
    """Bytes of UTF-8 read by their offsets: a copy on disk, or a text's encoding."""

    def size(self) -> int: ...
    def read(self, start: int, end: int) -> bytes: ...


class InMemory:
    """A text already in memory, as a Source."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def size(self) -> int:
        return len(self._data)

    def read(self, start: int, end: int) -> bytes:
        return self._data[start:end]


class Piece(Value):
    """Where a piece of the text lies, in bytes and in characters, and whether it is blank."""

    start: int
    end: int
    first_char: int
    chars: int
    blank: bool


class TranscriptParts:
    """A transcript's parts, in order, each read from the source as it is asked for; from the
    piece `start` on, when given (memidx.agents.copy_cuts: the pieces before it are filed)."""

    def __init__(
        self,
        source: Source,
        pieces: list[Piece],
        spans: list[tuple[int, int, str]],
        start: int = 0,
    ) -> None:
        self._source, self.pieces, self.spans, self._start = source, pieces, spans, start
        kept = [not piece.blank or bool(self._own(piece)) for piece in pieces]
        self.count, self._before = sum(kept), sum(kept[:start])
        self.last = start  # the piece read last (the first one not filed, when filing stops)

    def __iter__(self) -> Iterator[str]:
        return (text for _, text in self.numbered())

    def numbered(self) -> Iterator[tuple[int, str]]:
        """Each part from the piece `start` on, with its number among all the parts."""
        from memidx.secrets.patterns import merged, redact

        number = self._before
        for index in range(self._start, len(self.pieces)):
            piece, own = self.pieces[index], self._own(self.pieces[index])
            if piece.blank and not own:  # no words: no record
                continue
            self.last, number = index, number + 1
            text = self._source.read(piece.start, piece.end).decode("utf-8")
            yield number, redact(text, merged(own)) if own else text

    def _own(self, piece: Piece) -> list[Finding]:
        from memidx.secrets.patterns import Finding

        low, high = piece.first_char, piece.first_char + piece.chars
        return [
            Finding(max(s, low) - low, min(e, high) - low, kind)
            for s, e, kind in self.spans
            if s < high and e > low
        ]


def cut(source: Source, limit: int, seen: Seen | None = None) -> TranscriptParts:
    """The source's text cut into consecutive parts of at most `limit` UTF-8 bytes, each at a
    line end unless one line alone is longer (then at a character's end); parts without words
    left out (a record needs some); each secret found within REACH of a cut masked in full.
    `seen` is given each piece's bytes as they are read, in order (they make the text whole)."""
    pieces = _pieces(source, limit, seen)
    return TranscriptParts(source, pieces, _spans_at_cuts(source, pieces))


def _pieces(source: Source, limit: int, seen: Seen | None) -> list[Piece]:
    """Where the pieces lie, read a piece (and one byte) at a time."""
    size, start, chars = source.size(), 0, 0
    pieces: list[Piece] = []
    while start < size:
        end = min(size, start + limit)
        window = source.read(start, min(size, end + 1))  # the byte past the limit, too
        if end < size:
            newline = window.rfind(b"\n", 0, end - start)
            if newline >= 0:
                end = start + newline + 1
            else:
                while end > start + 1 and window[end - start] & 0xC0 == 0x80:  # in a character
                    end -= 1
        if seen is not None:
            seen(window[: end - start])
        text = window[: end - start].decode("utf-8")
        pieces.append(Piece(start, end, chars, len(text), not text.strip()))
        start, chars = end, chars + len(text)
    return pieces


def _spans_at_cuts(source: Source, pieces: list[Piece]) -> list[tuple[int, int, str]]:
    """The secrets the detectors find within REACH characters of a cut, in the text's
    characters: (start, end, kind)."""
    if len(pieces) < 2:
        return []
    from memidx.agents.part_cuts import spans_in_windows
    from memidx.secrets.cuts import REACH

    windows: list[tuple[int, str]] = []
    size, most = source.size(), 4 * REACH + 3  # a character takes at most 4 bytes
    for piece in pieces[1:]:
        # a character cut at a window's edge is no character of it: dropped ("ignore")
        before = source.read(max(0, piece.start - most), piece.start).decode("utf-8", "ignore")
        after = source.read(piece.start, min(size, piece.start + most)).decode("utf-8", "ignore")
        before, after = before[max(0, len(before) - REACH) :], after[:REACH]
        windows.append((piece.first_char - len(before), before + after))
    return spans_in_windows(windows)
