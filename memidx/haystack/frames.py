"""The haystack's record format: KRD1 frames, and reading them back (scan, read at an offset).

A record on disk is b"KRD1", a 4-byte little-endian unsigned length, then that many bytes of
UTF-8 JSON. Records are appended whole and never rewritten, so a record's offset is its
address forever and a backup is a file copy.

A crash can leave only a torn tail: the bytes after the last whole record, with no whole record
after them (an incomplete header or JSON, or a last frame whose JSON does not parse: a file's
length can run ahead of its bytes). Readers never return it, and the writer
(memidx.haystack.writer) moves those bytes aside before its next append. Anything unreadable
with a whole record after it is damage: readers report it (offset and bytes) and resynchronise
on the next b"KRD1" that starts a whole, parseable frame, so every intact record after it is
still read. A false b"KRD1" inside a JSON body never passes for a frame: JSON escapes control
characters, so the four bytes after it give a length of at least 0x20202020, over the limit.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from memidx.errors import MemidxError
from memidx.hashes import content_hash, sha256_hex

MAGIC = b"KRD1"
HEADER = struct.Struct("<4sI")
FORGET = "forget"  # a tombstone's kind (memidx forget)
KINDS = ("turn", "transcript", "fact", FORGET)
MAX_RECORD_BYTES = 64 * 1024 * 1024  # readers: a larger frame is broken framing
MAX_TEXT_BYTES = 8 * 1024 * 1024  # writers: a record's text, well under the frame limit


@dataclass(frozen=True, slots=True)
class Record:
    """One entry of the log, as stored."""

    id: str
    kind: str
    drawer: str
    ts: str
    tags: tuple[str, ...]
    text: str
    hash: str
    agent: str | None = None
    session: str | None = None
    summary_of: str | None = None
    redacted: int = 0  # secrets and private spans replaced before it was written
    forgets: str | None = None  # a tombstone: the id of the record it forgets

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "id": self.id, "kind": self.kind, "drawer": self.drawer, "ts": self.ts,
            "tags": list(self.tags), "text": self.text, "hash": self.hash,
        }  # fmt: skip
        return data | self.optional()

    def optional(self) -> dict[str, object]:
        """The optional fields this record has, in the order they are written: those that are
        not None, and `redacted` when any secret was replaced."""
        data: dict[str, object] = {}
        for key in ("agent", "session", "summary_of", "forgets"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.redacted:
            data["redacted"] = self.redacted
        return data


@dataclass(frozen=True, slots=True)
class Located:
    """A record and where it stands in its segment."""

    record: Record
    offset: int
    length: int  # of the whole frame: header and JSON
    digest: str = ""  # SHA-256 of the frame's JSON bytes: any change of the bytes changes it
    intact: bool = True  # whether the text matches the record's hash


@dataclass(frozen=True, slots=True)
class Damage:
    """Bytes of a segment that are not a record, with whole records after them (or a record
    whose text does not match its hash)."""

    offset: int
    length: int
    reason: str


@dataclass(slots=True)
class Scan:
    """The records of a segment, the damage between them, and where its valid bytes end."""

    records: list[Located] = field(default_factory=list[Located])
    end: int = 0  # after the last whole record: what follows is a torn tail
    size: int = 0
    damaged: list[Damage] = field(default_factory=list[Damage])

    @property
    def torn(self) -> int:
        """Bytes after the last whole record (a torn tail)."""
        return self.size - self.end


def iso_utc(text: str) -> str:
    """A timestamp in UTC as `YYYY-MM-DDTHH:MM:SSZ` (naive times are taken as UTC);
    ValueError when the text is not ISO 8601."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)
    except OverflowError as exc:  # 0001-01-01T00:00+01:00 is before the first UTC moment
        raise ValueError(f"{text.strip()} is out of range in UTC") from exc
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}Z"  # strftime gives year 999, not 0999


def new_record(
    kind: str,
    text: str,
    *,
    drawer: str = "general",
    tags: tuple[str, ...] = (),
    agent: str | None = None,
    session: str | None = None,
    summary_of: str | None = None,
    ts: str | None = None,
) -> Record:
    """A record ready to append, with a fresh id and the content hash."""
    if kind not in KINDS:
        raise MemidxError(f"unknown record kind {kind!r}", f"use one of {', '.join(KINDS)}")
    if not text.strip():
        raise MemidxError("the record has no text", "give it the words to keep")
    size = len(text.encode("utf-8"))
    if size > MAX_TEXT_BYTES:
        raise MemidxError(
            f"the record's text is {size:,} bytes, over the {MAX_TEXT_BYTES:,}-byte limit",
            "split it into several records (e.g. one per part of the transcript)",
        )
    now = datetime.now(UTC)
    stamp = ts or now.strftime("%Y-%m-%dT%H:%M:%SZ")
    ident = f"{kind}-{now.strftime('%Y%m%d%H%M%S')}-{os.urandom(6).hex()}"
    return Record(
        ident, kind, drawer, stamp, tags, text, content_hash(text), agent, session, summary_of
    )


def frame(record: Record) -> bytes:
    payload = json.dumps(record.to_json(), ensure_ascii=False, sort_keys=True).encode("utf-8")
    return HEADER.pack(MAGIC, len(payload)) + payload


def parse(payload: bytes) -> Record:
    """A record from its JSON bytes; ValueError when they are not a record."""
    loaded: object = json.loads(payload.decode("utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError("not an object")
    data = cast(dict[str, Any], loaded)
    tags: object = data.get("tags") or []
    return Record(
        id=str(data["id"]),
        kind=str(data["kind"]),
        drawer=str(data.get("drawer") or "general"),
        ts=str(data["ts"]),
        tags=tuple(str(t) for t in cast(list[object], tags)) if isinstance(tags, list) else (),
        text=str(data["text"]),
        hash=str(data["hash"]),
        agent=None if data.get("agent") is None else str(data["agent"]),
        session=None if data.get("session") is None else str(data["session"]),
        summary_of=None if data.get("summary_of") is None else str(data["summary_of"]),
        redacted=_count(data.get("redacted")),
        forgets=None if data.get("forgets") is None else str(data["forgets"]),
    )


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def scan_bytes(data: bytes) -> Scan:
    """Every whole record from the start. Unreadable bytes followed by a whole record are
    damage (listed, and the scan goes on at that record); unreadable bytes with no whole
    record after them are the torn tail."""
    scan = Scan(size=len(data))
    offset = 0
    while offset < len(data):
        found = frame_at(data, offset)
        if found is None:
            later = next_frame(data, offset + 1)
            if later is None:
                break  # the torn tail: nothing whole after it
            scan.damaged.append(Damage(offset, later - offset, _fault(data, offset)))
            offset = later
            continue
        if not found.intact:
            scan.damaged.append(Damage(offset, found.length, HASH_MISMATCH))
        scan.records.append(found)
        offset = scan.end = offset + found.length
    return scan


HASH_MISMATCH = "the record's text does not match its hash (indexed as read, marked damaged)"


def frame_at(data: bytes, offset: int) -> Located | None:
    """The whole record whose frame starts at `offset`, or None."""
    if offset + HEADER.size > len(data):
        return None
    magic, length = HEADER.unpack_from(data, offset)
    end = offset + HEADER.size + length
    if magic != MAGIC or length > MAX_RECORD_BYTES or end > len(data):
        return None
    payload = data[offset + HEADER.size : end]
    try:
        record = parse(payload)
    except (ValueError, KeyError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    intact = content_hash(record.text) == record.hash
    return Located(record, offset, end - offset, sha256_hex(payload), intact)


def next_frame(data: bytes, start: int) -> int | None:
    """The offset of the first whole record at or after `start` (a resync point), or None."""
    candidate = data.find(MAGIC, start)
    while candidate != -1:
        if frame_at(data, candidate) is not None:
            return candidate
        candidate = data.find(MAGIC, candidate + 1)
    return None


def _fault(data: bytes, offset: int) -> str:
    """What is wrong with the frame at `offset` (which is not a whole record)."""
    if data[offset : offset + len(MAGIC)] != MAGIC:
        return "no KRD1 magic"
    if offset + HEADER.size > len(data):
        return "header cut short"
    _, length = HEADER.unpack_from(data, offset)
    if length > MAX_RECORD_BYTES or offset + HEADER.size + length > len(data):
        return f"impossible length {length:,}"
    return "unreadable JSON"


def valid_end(data: bytes) -> int:
    """Where the torn tail of a segment starts (its size when there is none). Walks the frame
    headers and parses only the last frame: whole frames are written by one append, so when
    the headers chain to the end and the last one parses there is nothing to look at; any
    other segment is scanned in full, so damage before whole records is never taken for a
    torn tail."""
    offset = last = 0
    while offset + HEADER.size <= len(data):
        magic, length = HEADER.unpack_from(data, offset)
        end = offset + HEADER.size + length
        if magic != MAGIC or length > MAX_RECORD_BYTES or end > len(data):
            break
        last, offset = offset, end
    if offset == len(data) and (offset == 0 or frame_at(data, last) is not None):
        return offset
    return scan_bytes(data).end


def scan_file(path: Path) -> Scan:
    """The records of a segment file, read as it is: none when it is gone, a FIFO (it hung
    every sync, a hook's too) or a link (git checks out a link a commit holds); either of
    those is damage (NOT_A_FILE), so the records the index drops are said, not lost unsaid."""
    from memidx.drafts import read_whole

    data = read_whole(path)
    if data is not None:
        return scan_bytes(data)
    return Scan(damaged=[Damage(0, 0, NOT_A_FILE)] if os.path.lexists(path) else [])


NOT_A_FILE = "no segment file but a link or a FIFO: none of its records are read or found"


def read_at(path: Path, offset: int) -> Record:
    """The record that starts at `offset` (for `memidx show`)."""
    with path.open("rb") as stream:
        stream.seek(offset)
        header = stream.read(HEADER.size)
        if len(header) < HEADER.size:
            raise MemidxError(f"no record at {path}@{offset}", "check the ref")
        magic, length = HEADER.unpack(header)
        payload = stream.read(length)
    if magic != MAGIC or len(payload) != length:
        raise MemidxError(f"no complete record at {path}@{offset}", "check the ref")
    try:
        return parse(payload)
    except (ValueError, KeyError) as exc:  # UnicodeDecodeError is a ValueError
        raise MemidxError(f"no valid record at {path}@{offset}", "check the ref") from exc
