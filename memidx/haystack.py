"""The haystack: an append-only log of records (turns, transcripts, facts), one writer per clone.

A record on disk is b"KRD1", a 4-byte little-endian unsigned length, then that many bytes of
UTF-8 JSON. Records are appended whole and never rewritten, so a record's offset is its
address forever and a backup is a file copy. A crash can leave at most a torn tail (an
incomplete header, length or JSON): readers never return it, and the next append moves those
bytes aside into a `.torn` file before writing, so nothing is destroyed.

Segments live under notes/haystack/<writer-id>/ and are committed like notes: each clone
appends only to its own folder, so git merges of logs never conflict.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import struct
import threading
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from memidx.digest import sha256_hex
from memidx.errors import MemidxError
from memidx.segments import SEGMENT_SUFFIX

MAGIC = b"KRD1"
HEADER = struct.Struct("<4sI")
KINDS = ("turn", "transcript", "fact")
MAX_RECORD_BYTES = 64 * 1024 * 1024  # readers: a larger frame is broken framing
MAX_TEXT_BYTES = 8 * 1024 * 1024  # writers: a record's text, well under the frame limit
_LOCK = threading.Lock()  # appends from threads of one process; flock covers processes


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

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "id": self.id, "kind": self.kind, "drawer": self.drawer, "ts": self.ts,
            "tags": list(self.tags), "text": self.text, "hash": self.hash,
        }  # fmt: skip
        for key in ("agent", "session", "summary_of"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


@dataclass(frozen=True, slots=True)
class Located:
    """A record and where it stands in its segment."""

    record: Record
    offset: int
    length: int  # of the whole frame: header and JSON


@dataclass(slots=True)
class Scan:
    """The complete records of a segment and where its valid bytes end."""

    records: list[Located] = field(default_factory=list[Located])
    end: int = 0
    size: int = 0
    damaged: list[int] = field(default_factory=list[int])  # offsets of unreadable whole frames

    @property
    def torn(self) -> int:
        """Bytes after the last complete record (a torn tail)."""
        return self.size - self.end


def iso_utc(text: str) -> str:
    """A timestamp in UTC as `YYYY-MM-DDTHH:MM:SSZ` (naive times are taken as UTC);
    ValueError when the text is not ISO 8601."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def content_hash(text: str) -> str:
    return sha256_hex(text.encode("utf-8"))


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
    )


def scan_bytes(data: bytes) -> Scan:
    """Every complete record from the start. A frame whose bytes are not a record is skipped
    (and listed); the scan stops where framing breaks (a torn tail); an unreadable last frame
    is a torn tail too."""
    scan = Scan(size=len(data))
    offset = 0
    while offset + HEADER.size <= len(data):
        magic, length = HEADER.unpack_from(data, offset)
        end = offset + HEADER.size + length
        if magic != MAGIC or length > MAX_RECORD_BYTES or end > len(data):
            break
        try:
            record = parse(data[offset + HEADER.size : end])
        except (ValueError, KeyError, UnicodeDecodeError):
            if end == len(data):
                break
            scan.damaged.append(offset)
        else:
            scan.records.append(Located(record, offset, end - offset))
        offset = end
    scan.end = offset
    return scan


def valid_end(data: bytes) -> int:
    """Where the complete records of a segment end, walking the frame headers and parsing only
    the last frame (whole frames are written by one append, so only the tail can be torn)."""
    offset = last = 0
    while offset + HEADER.size <= len(data):
        magic, length = HEADER.unpack_from(data, offset)
        end = offset + HEADER.size + length
        if magic != MAGIC or length > MAX_RECORD_BYTES or end > len(data):
            break
        last, offset = offset, end
    if offset > last:
        try:
            parse(data[last + HEADER.size : offset])
        except (ValueError, KeyError, UnicodeDecodeError):
            return last
    return offset


def scan_file(path: Path) -> Scan:
    try:
        return scan_bytes(path.read_bytes())
    except FileNotFoundError:
        return Scan()


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


GITATTRIBUTES = "# haystack segments are binary logs, never merged as text\n*.krd binary\n"
GITIGNORE = "# torn tails moved aside after a crash stay on the machine that crashed\n*.torn\n"


class Writer:
    """Appends records to this clone's own segments, rotating by day and by size.

    A checkout of an older commit takes committed segments, or their later bytes, off the disk;
    git brings them back with the next checkout. So the writer never writes a segment again
    unless it is exactly as this writer left it: it remembers its last segment and that
    segment's size (in `<lock>.last`), and otherwise starts a new segment numbered after it.
    """

    def __init__(self, folder: Path, lock: Path, segment_bytes: int, fsync: bool = True) -> None:
        self.folder = folder
        self.lock = lock
        self.last = lock.with_name(lock.name + ".last")
        self.segment_bytes = segment_bytes
        self.fsync = fsync

    @contextmanager
    def locked(self) -> Generator[None]:
        """Exclusive use of this writer's segments: threads of this process and other
        processes of this clone wait their turn."""
        with _LOCK:
            self.lock.parent.mkdir(parents=True, exist_ok=True)
            with self.lock.open("w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                yield

    def append(self, record: Record) -> tuple[Path, int, int]:
        """Write one whole record; returns (segment, offset, frame length)."""
        with self.locked():
            return self.append_locked(record)

    def append_locked(self, record: Record) -> tuple[Path, int, int]:
        """append(), for a caller that holds locked()."""
        data = frame(record)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._segment(len(data))
        with path.open("ab") as out:
            offset = out.tell()
            out.write(data)
            out.flush()
            if self.fsync:
                os.fsync(out.fileno())
        self._remember(path.name, offset + len(data))
        return path, offset, len(data)

    def _segment(self, incoming: int) -> Path:
        """Today's newest segment if the record fits and the file is as this writer left it,
        else a new one after every segment this writer has made. The newest segment gets a
        torn tail moved aside first (a crash may have left one)."""
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        existing = sorted(self.folder.glob(f"*{SEGMENT_SUFFIX}"), key=_segment_order)
        remembered = self._remembered()
        last = _segment_order(existing[-1]) if existing else None
        if existing:
            size = self._repair(existing[-1])
            unchanged = remembered is None or remembered == (existing[-1].name, size)
            fits = size == 0 or size + incoming <= self.segment_bytes
            if existing[-1].name.startswith(f"{day}.") and unchanged and fits:
                return existing[-1]
        if remembered is not None:
            last = max(last or ("", -1), _segment_order(self.folder / remembered[0]))
        number = last[1] + 1 if last is not None and last[0] == day else 0
        return self.folder / f"{day}.{number:03d}{SEGMENT_SUFFIX}"

    def _remembered(self) -> tuple[str, int] | None:
        """(name, size) of the segment this writer appended to last, if it knows."""
        try:
            name, _, size = self.last.read_text(encoding="utf-8").strip().partition(" ")
        except (FileNotFoundError, UnicodeDecodeError):
            return None
        return (name, int(size)) if name.endswith(SEGMENT_SUFFIX) and size.isdigit() else None

    def _remember(self, name: str, size: int) -> None:
        draft = self.last.with_name(f"{self.last.name}.{os.getpid()}")
        draft.write_text(f"{name} {size}\n", encoding="utf-8")
        draft.replace(self.last)  # whole or not at all

    def _repair(self, path: Path) -> int:
        """Move a torn tail into <segment>.torn (appended, never overwritten); returns the size."""
        data = path.read_bytes()
        end = valid_end(data)
        if end == len(data):
            return end
        describe_folder(path.parent.parent)  # the .torn file must stay out of commits
        with path.with_name(path.name + ".torn").open("ab") as aside:
            aside.write(data[end:])
            aside.flush()
            os.fsync(aside.fileno())
        with path.open("r+b") as stream:
            stream.truncate(end)
        return end


def _segment_order(path: Path) -> tuple[str, int]:
    """(day, number) of `<day>.<number>.krd`: numbers compare as numbers (999 < 1000)."""
    day, _, rest = path.name.partition(".")
    number = rest.split(".")[0]
    return day, int(number) if number.isdigit() else -1


def describe_folder(haystack: Path) -> None:
    """.gitattributes (segments are binary) and .gitignore (torn tails) of the haystack. Made
    when they are needed (a commit of segments, a torn tail), not at every append: made on an
    older commit that lacks them, they would block the checkout that brings them back."""
    for name, text in ((".gitattributes", GITATTRIBUTES), (".gitignore", GITIGNORE)):
        path = haystack / name
        if not path.exists():
            path.write_text(text, encoding="utf-8")


WRITER_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def writer_id(state_dir: Path) -> str:
    """This clone's writer id, made once and kept in .memidx/writer-id (never shared by two
    clones). Created whole (a temporary file linked into place), so a concurrent reader never
    sees it half-written."""
    path = state_dir / "writer-id"
    if not path.exists():
        host = "".join(c if c in _ID_CHARS else "-" for c in os.uname().nodename.lower())
        ident = f"{host[:24].strip('-') or 'writer'}-{os.urandom(4).hex()}"
        state_dir.mkdir(parents=True, exist_ok=True)
        draft = state_dir / f".writer-id.{os.getpid()}.{os.urandom(4).hex()}"
        draft.write_text(ident + "\n", encoding="utf-8")
        try:
            os.link(draft, path)  # fails if another process made it first: theirs wins
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    ident = path.read_text(encoding="utf-8").strip()
    if not WRITER_ID.fullmatch(ident):
        raise MemidxError(
            f"{path} holds {ident!r}, not a writer id",
            "delete the file; a new id is made on the next filing",
        )
    return ident
