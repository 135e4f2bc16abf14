"""A forgotten record's bytes leave a segment by a frame of the same length that keeps only
its id, kind, drawer and time (`memidx haystack purge`): pure functions over a segment's bytes,
so every other record keeps its offset (its ref), and the reading through a linked segment
that tells whether it holds any (linked_holding: purge never writes through a link).

`forgotten` holds the ids of the forgotten records and the content hashes of their texts
(hashes_of). A whole record is blanked by its id only: another record with the same text is
not forgotten. Bytes that are no whole record (a torn tail a crash left, damage, a `.torn`
file's tails) are cut at each frame header in them, and each cut frame is blanked when its own
`hash` or `id` is one of them: a record's JSON has its keys sorted, so any of its text comes
after both (a retry after a crash files the same text under a new id, with the same hash); a
text that only mentions one (a turn about `memidx forget`, a torn tombstone) stays. A blanked
cut frame keeps its first 8 bytes (a frame's header) and the rest becomes spaces: it stays as
unreadable as it was, and the same length."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path

from memidx.hashes import content_hash
from memidx.haystack.frames import (
    FORGET,
    HEADER,
    MAGIC,
    MAX_RECORD_BYTES,
    Located,
    Record,
    scan_bytes,
)


def blank_frame(located: Located) -> bytes:
    """A frame of exactly the forgotten record's length: its id, kind, drawer and time, and
    spaces for text (with their hash, so the record reads as intact)."""
    record = located.record
    size = located.length - HEADER.size

    def payload(text: str) -> bytes:
        data: dict[str, object] = {
            "id": record.id, "kind": record.kind, "drawer": record.drawer, "ts": record.ts,
            "tags": [], "text": text, "hash": content_hash(text),
        }  # fmt: skip
        return json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8")

    spare = size - len(payload(""))  # spaces are one byte each, never escaped
    if spare < 0:
        raise ValueError(f"record {record.id} is too short to blank in place")
    return HEADER.pack(MAGIC, size) + payload(" " * spare)


def blanked(data: bytes, forgotten: set[str]) -> tuple[bytes, int]:
    """The segment's bytes with every forgotten record blanked, and every span of bytes that
    is no whole record (damage, the torn tail) and names one; and how many were."""
    out = bytearray(data)
    count = 0
    scan = scan_bytes(data)
    for located in scan.records:
        record = located.record
        if record.id in forgotten and record.text.strip() and record.kind != FORGET:
            out[located.offset : located.offset + located.length] = blank_frame(located)
            count += 1
    whole = {located.offset for located in scan.records}
    spans = [(d.offset, d.offset + d.length) for d in scan.damaged if d.offset not in whole]
    for start, end in [*spans, (scan.end, len(data))]:
        cuts = [start, *_headers(data, start, end), end]  # damage may hold several cut frames
        count += sum(_blank_span(out, a, b, forgotten) for a, b in pairwise(cuts) if a < b)
    return bytes(out), count


def blanked_torn(data: bytes, forgotten: set[str]) -> tuple[bytes, int]:
    """A `.torn` file's bytes (torn tails appended one after another, each from a frame's
    header on) with each tail that names a forgotten id or hash blanked; and how many were."""
    starts = [0, *_headers(data, 0, len(data)), len(data)]
    out = bytearray(data)
    count = sum(_blank_span(out, a, b, forgotten) for a, b in pairwise(starts) if a < b)
    return bytes(out), count


def blanked_or_none(data: bytes, forgotten: set[str]) -> bytes | None:
    """The segment's bytes with the forgotten records blanked, None when it holds none (a
    segment that names no forgotten id is not even scanned)."""
    if not names_any(data, forgotten):
        return None
    new, count = blanked(data, forgotten)
    return new if count else None


def names_any(data: bytes, forgotten: set[str]) -> bool:
    """Whether the segment's bytes hold a frame, whole or cut, whose own id or text hash is one
    of `forgotten`: one pass over the bytes however many there are (a search for each took
    seconds with a thousand forgotten records and their hashes)."""
    return _names_own(data, forgotten)


def hashes_of(segments: Iterable[bytes], ids: set[str]) -> set[str]:
    """The content hashes of the texts of the records with these ids in `segments` (the
    bytes of segment files), blank ones left out: a blanked frame's text is spaces."""
    return {record.hash for record in records_of(segments, ids)}


def records_of(segments: Iterable[bytes], ids: set[str]) -> list[Record]:
    """The records with these ids in `segments` (the bytes of segment files) whose text is
    not blanked yet; tombstones left out."""
    found: list[Record] = []
    for data in segments:
        if names_any(data, ids):
            found += [
                located.record for located in scan_bytes(data).records
                if located.record.id in ids and located.record.text.strip()
                and located.record.kind != FORGET
            ]  # fmt: skip
    return found


def _blank_span(out: bytearray, start: int, end: int, forgotten: set[str]) -> int:
    """Blank out[start:end] (one cut frame) after its first header's worth of bytes if it is
    a forgotten record's; 1 when it did."""
    keep = min(start + HEADER.size, end)
    if keep == end or not _names_own(bytes(out[keep:end]), forgotten):
        return 0
    out[keep:end] = b" " * (end - keep)
    return 1


# a frame's own `hash` or `id`: inside a JSON string every quote is escaped (`\"`), so a text
# that mentions a forgotten id (a turn about `memidx forget`, a tombstone's) never matches
_OWN = re.compile(rb'(?<!\\)"(?:hash|id)"\s*:\s*"([^"\\]*)"')


def _names_own(payload: bytes, forgotten: set[str]) -> bool:
    """Whether the JSON of frames, whole or cut, gives one the id or text hash of a forgotten
    record. A few are first looked for as they are (faster than reading every field)."""
    if len(forgotten) <= _FEW and not any(name.encode() in payload for name in forgotten):
        return False
    return any(found[1].decode("ascii", "replace") in forgotten for found in _OWN.finditer(payload))


_FEW = 64  # a search of the bytes for each costs less than one pass over every field


def _headers(data: bytes, start: int, end: int) -> list[int]:
    """The offsets after `start` and before `end` where a frame's header starts: `KRD1` and a
    length a frame can have (inside JSON the four bytes after `KRD1` are printable text: far
    too long)."""
    found: list[int] = []
    at = data.find(MAGIC, start + 1, end)
    while at != -1:
        if at + HEADER.size <= len(data) and HEADER.unpack_from(data, at)[1] <= MAX_RECORD_BYTES:
            found.append(at)
        at = data.find(MAGIC, at + 1, end)
    return found


def linked_holding(links: list[Path], forgotten: set[str], blanks: list[Path]) -> list[Path]:
    """The linked segments whose file may hold a forgotten record: not one of the segments
    this purge `blanks` (a link to a segment of the work tree itself)."""
    from os.path import realpath

    from memidx.haystack.held import MAX_SEGMENT_BYTES

    mine = {realpath(path) for path in blanks}
    return [
        path for path in links
        if realpath(path) not in mine and linked_may_hold(path, forgotten, MAX_SEGMENT_BYTES)
    ]  # fmt: skip


def linked_may_hold(path: Path, forgotten: set[str], limit: int) -> bool:
    """Whether the file a linked segment at `path` names holds a forgotten record purge would
    blank (one blanked already is none): read through the link (purge never writes through
    one). A dangling link or a loop names no file; a FIFO, a device or a folder holds no
    record and is never opened (a device may act when opened); a file it cannot read, or
    past `limit` bytes (no segment memidx wrote, never read whole), may hold one."""
    import errno
    import os
    import stat

    from memidx.drafts import read_whole

    try:
        named = path.stat()  # through every link: ELOOP for a loop (resolve raised RuntimeError)
    except OSError as exc:
        return exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP)
    if not stat.S_ISREG(named.st_mode):
        return False
    if named.st_size > limit:
        return True
    try:
        data = read_whole(Path(os.path.realpath(path)))
    except OSError:
        return True
    return data is not None and blanked_or_none(data, forgotten) is not None
