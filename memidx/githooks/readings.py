"""The texts a message's or a file's bytes may be taken for, and which secret of one reading is
a secret another reading holds already (pure: the commit-msg check imports it, and must start
without subprocess). The commit-msg check, the pre-commit check and the push check read the
same bytes the same ways, so they refuse the same secrets, each said once."""

from __future__ import annotations

import bisect
import codecs

from memidx.githooks.latin1 import AS_LATIN1, CP1252, latin1_reading

AS_UTF8 = " (read as UTF-8)"  # a reading besides the one the commit's encoding gives
LABELS = (AS_UTF8, AS_LATIN1)
BYTES_OF = {ord(char): byte for byte, char in CP1252.items()}  # a Latin-1 reading's bytes back


# Python text codecs that are no character set: an escape syntax or a domain name's. git's
# iconv knows none of them, so git stores and shows such a message's bytes as they are; read
# in them, ASCII became other text (`\x5a` a `Z`, a `\n` a line break) and the checks disagreed.
NO_CHARSET = frozenset({"punycode", "unicode-escape", "raw-unicode-escape", "idna", "mbcs", "oem"})


def unconverted(encoding: str) -> bool:
    """Whether git shows a message whose commit names `encoding` as its bytes are (UTF-8):
    no encoding Python knows, no text encoding (`base64`, `rot13`: readings() read them as
    UTF-8, and the commit-msg check did not say so), or no character set (NO_CHARSET)."""
    try:
        b"x".decode(encoding, "replace")  # LookupError: no text encoding (b"" is never decoded)
        return codecs.lookup(encoding).name in NO_CHARSET
    except (LookupError, ValueError, TypeError):  # unknown, or a NUL in the name
        return True


def readings(data: bytes, encoding: str | None, plain: str) -> list[tuple[str, str]]:
    """The texts a reader may take `data` for, and how each is named: as the `encoding` its
    commit names (`encoding ISO-8859-1`: a Latin-1 byte read as UTF-8 was U+FFFD, and a
    secret beside it, or holding it, went unseen); as `plain`, its UTF-8 reading, when there
    is none or it is no text encoding Python knows (never an error), and then as Latin-1 too
    when it is no UTF-8 (latin1_reading). Bytes the encoding reads otherwise are read both
    ways, valid UTF-8 or not: a header naming the wrong encoding must not hide what a UTF-8
    reader sees (Shift_JIS takes a cp1252 quote and the `g` after it for one character:
    `\x93ghp_...` held no token); the checks say a secret two readings hold once. An
    encoding git does not convert (unconverted: `punycode`, `unicode_escape`) is UTF-8, as
    git shows the message, for every check."""
    if encoding is None or _utf8(encoding) or unconverted(encoding):
        return [(plain, ""), *latin1_reading(data, plain)]
    try:
        named = data.decode(encoding, "replace")
    except (LookupError, ValueError):  # unknown, no text codec (`rot13`), a NUL in the name
        return [(plain, ""), *latin1_reading(data, plain)]
    return [(named, "")] if named == plain else [(named, ""), (plain, AS_UTF8)]


def _utf8(encoding: str) -> bool:
    return encoding.replace("-", "").replace("_", "").lower() == "utf8"


class Utf8Found:
    """The secrets found in a UTF-8 reading (`text`, each invalid sequence one U+FFFD), to
    tell whether a secret of the same bytes' Latin-1 reading (one character a byte) stands on
    bytes one of them stands on: then it is the same secret, said once. One character for
    one, the two readings' offsets differ after any valid UTF-8 letter (`café`) or a
    sequence of several bytes that is none: compared by place, such a secret was said twice."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[int, int]] = []
        self._bytes: list[tuple[int, int]] | None = None  # the spans in bytes, made once
        self._named: list[tuple[int, int]] | None = None  # the same, `text` in its encoding
        self._utf8: tuple[str, Places] | None = None  # the UTF-8 reading placed, made once

    def add(self, start: int, end: int) -> None:
        """Note a secret found at text[start:end]."""
        self.spans.append((start, end))
        self._bytes = self._named = None

    def holds(self, latin1: str, start: int, end: int) -> bool:
        """Whether latin1[start:end], a secret of the Latin-1 reading of the bytes `text` reads,
        overlaps in bytes a secret added."""
        if not self.spans:
            return False
        if self._bytes is None:
            places = Places(self.text, latin1.translate(BYTES_OF).encode("latin-1", "replace"))
            self._bytes = _merged(places.bytes_at(self.spans))
        at = bisect.bisect_left(self._bytes, (end,)) - 1  # the last span that begins before end
        return at >= 0 and self._bytes[at][1] > start

    def holds_as_utf8(self, data: bytes, encoding: str, utf8: str, start: int, end: int) -> bool:
        """Whether utf8[start:end], a secret of the UTF-8 reading of `data` (AS_UTF8), overlaps
        in bytes a secret added, `text` being the reading of `data` in its commit's
        `encoding`: `password=Zk9\xe9x...` of a Latin-1 commit is `Zk9\u00e9x...` one way and
        `Zk9\ufffdx...` the other, two texts of one secret, which both checks said twice. A
        text too long to place or a codec that cannot place is never held (said twice)."""
        if not self.spans:
            return False
        if self._named is None:
            self._named = _merged(_decoded_at(data, encoding, self.spans) or [])
        if not self._named:
            return False
        if self._utf8 is None or self._utf8[0] is not utf8:  # its secrets come in order:
            self._utf8 = (utf8, Places(utf8, data))  # each placed from the one before
        begin, stop = self._utf8[1].bytes_at([(start, end)])[0]
        at = bisect.bisect_left(self._named, (stop,)) - 1
        return at >= 0 and self._named[at][1] > begin


PLACED_LIMIT = 1 << 20  # the bytes placed one at a time in a reading of a named encoding


def _decoded_at(
    data: bytes, encoding: str, spans: list[tuple[int, int]]
) -> list[tuple[int, int]] | None:
    """`spans` of the reading of `data` in `encoding` in bytes, a byte at a time through the
    codec's incremental decoder (a multibyte or shifting encoding places no character by
    arithmetic); None for a text too long or a codec that has none."""
    if len(data) > PLACED_LIMIT:
        return None
    try:
        decoder = codecs.getincrementaldecoder(encoding)("replace")
    except (LookupError, TypeError, ValueError):
        return None
    wanted = sorted({offset for span in spans for offset in span})
    placed: dict[int, int] = {}
    chars, begin, index = 0, 0, 0  # characters read; where the next one's bytes begin
    for at in range(len(data) + 1):
        try:
            out = decoder.decode(data[at : at + 1], at == len(data))
        except (UnicodeError, ValueError):
            return None
        while index < len(wanted) and wanted[index] < chars + len(out):
            placed[wanted[index]] = begin if wanted[index] == chars else at
            index += 1
        if out:
            chars, begin = chars + len(out), at + 1
        if index == len(wanted):
            break
    placed.update(dict.fromkeys(wanted[index:], len(data)))
    return [(placed[start], placed[end]) for start, end in spans]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` sorted, overlapping ones merged: one bisection tells whether one overlaps."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


WINDOW = 4096  # the bytes decoded at once: a UnicodeDecodeError copies what it was given


class Places:
    """Where each character of `text`, the UTF-8 reading of `data`, begins in `data`."""

    def __init__(self, text: str, data: bytes) -> None:
        self.text = text
        self.cursor = (0, 0, 0)  # a character, its byte, the next U+FFFD: where bytes_at ended
        self.chars: list[int] = []  # where each U+FFFD the reading wrote stands in `text`
        self.bytes: list[tuple[int, int]] = []  # the bytes each one stands for
        view, at, char = memoryview(data), 0, 0
        while at < len(data):  # a window at a time: the whole rest, copied at each stray
            piece = view[at : at + WINDOW]  # byte, was quadratic in a long Latin-1 file
            try:  # a sequence the window's end cuts is left for the next window
                read, used = codecs.utf_8_decode(piece, "strict", at + WINDOW >= len(data))
            except UnicodeDecodeError as exc:  # the replace handler's one U+FFFD for these
                char += len(codecs.utf_8_decode(piece[: exc.start], "strict", True)[0])
                self.chars.append(char)
                self.bytes.append((at + exc.start, at + exc.end))
                at, char = at + exc.end, char + 1
            else:
                at, char = at + used, char + len(read)

    def bytes_at(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """`spans` of `text` in bytes, each offset placed from the one before it (from the
        start each time, many secrets after one stray byte were quadratic)."""
        offsets = sorted({offset for span in spans for offset in span})
        placed: dict[int, int] = {}
        # a character and its byte, known; the next U+FFFD: where the last call ended, when
        # these come after it (a secret at a time, each from the start, was quadratic)
        char, at, index = self.cursor if offsets and offsets[0] >= self.cursor[0] else (0, 0, 0)
        for offset in offsets:
            while index < len(self.chars) and self.chars[index] < offset:
                char, at = self.chars[index] + 1, self.bytes[index][1]
                index += 1
            if index < len(self.chars) and self.chars[index] == offset:
                placed[offset] = self.bytes[index][0]
                continue
            at += len(self.text[char:offset].encode("utf-8", "surrogatepass"))
            char, placed[offset] = offset, at
        self.cursor = (char, at, index)
        return [(placed[start], placed[end]) for start, end in spans]
