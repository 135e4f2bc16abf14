"""Where a copy left to archive was cut, kept beside it (`<copy>.cuts`) for the events that
finish it (memidx.agents.copy_parts: another session's a part at a time, memidx.agents.
finish_one; its own session's, and finish-archives, to its end). Each such event re-hashed and
re-cut the whole copy for its one part: a 256 MiB copy was read ~512 MiB at each of its ~256
events. The cuts are found once, in a pass that also hashes each piece and the whole copy (its
name's hash); a later event reads its part alone, checks that part's hash, and starts at the
first piece not filed. They are the copy's only while it is the very file they were found in
(its device, inode, size, mtime and ctime, read from the descriptor the parts are read from):
a copy written again since (begin renames a new file over it) is hashed and cut again, never
filed from a stale offset; a piece whose bytes differ from its hash is filed by no event."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from memidx.agents.copy_source import OnDisk
from memidx.agents.transcript_cuts import InMemory, Piece, TranscriptParts, cut
from memidx.drafts import PRIVATE, read_own, replace_durably
from memidx.frozen import cast
from memidx.memory.archives_left import copy_of
from memidx.process_start import note_clock

CUTS = ".cuts"  # beside the copy: <copy>.cuts
MOST = 16 * 1024 * 1024  # the most a cuts file is read of (a 1 GiB copy's: ~150 KB)
_VERSION = 1


class CopyChanged(Exception):
    """A copy whose bytes are not those its cuts were found in (or its name's hash)."""


class Cuts:
    """A copy's pieces, each piece's hash, the secrets at its cuts, and the first piece not
    filed (`done`), for the copy file of `identity` alone."""

    def __init__(
        self,
        identity: list[int],
        parts: TranscriptParts,
        hashes: list[str],
        done: int = 0,
    ) -> None:
        self.identity, self.parts, self.hashes, self.done = identity, parts, hashes, done
        self.kept = False  # whether they are kept beside the copy (found there, or keep)

    def rest(self, source: OnDisk) -> TranscriptParts:
        """The parts from the first not filed on, each piece's bytes checked as it is read."""
        parts = self.parts
        return TranscriptParts(_Checked(source, self), parts.pieces, parts.spans, self.done)


def cuts_path(copy: Path) -> Path:
    return copy.with_name(copy.name + CUTS)


def identity(source: OnDisk) -> list[int]:
    """What names the very file `source` reads: a file written again since differs."""
    return _identity(os.fstat(source.fileno()))


def _identity(found: os.stat_result) -> list[int]:
    return [found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]


def cuts_of(source: OnDisk, copy: Path, limit: int) -> Cuts:
    """The copy's cuts: those kept beside it when they are its file's, else found now (the
    copy read whole once); CopyChanged when its bytes no longer hash to its name."""
    return kept_cuts(source, copy, limit) or _found(source, copy, limit)


def kept_cuts(source: OnDisk, copy: Path, limit: int) -> Cuts | None:
    """The cuts kept beside `copy` when they were found in the file `source` reads, in
    parts of `limit` bytes; None for none (or any that are not, or do not parse)."""
    kept, mine = _kept(copy), identity(source)
    try:
        if kept.get("version") != _VERSION or kept.get("identity") != mine:
            return None
        rows = cast(list[list[object]], kept["pieces"])
        pieces, hashes = [_piece(row) for row in rows], [str(row[5]) for row in rows]
        spans = [_span(span) for span in cast(list[list[object]], kept["spans"])]
        (done,) = _ints([kept["done"]], 1)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    ends = [piece.end for piece in pieces]
    if [0, *ends[:-1]] != [piece.start for piece in pieces] or ends[-1:] != [mine[2]]:
        return None  # no pieces of this copy whole
    if kept.get("limit") != limit or not 0 <= done <= len(pieces):
        return None
    cuts = Cuts(mine, TranscriptParts(source, pieces, spans), hashes, done)
    cuts.kept = True
    return cuts


def _piece(row: list[object]) -> Piece:
    start, end, first_char, chars = _ints(row[:4], 4)
    return Piece(start, end, first_char, chars, row[4] is True)


def _span(span: list[object]) -> tuple[int, int, str]:
    start, end = _ints(span[:2], 2)
    return start, end, str(span[2])


def _ints(values: list[object], count: int) -> tuple[int, ...]:
    """`values`, `count` ints (TypeError for any other: a cuts file memidx did not write)."""
    if len(values) != count or not all(type(value) is int for value in values):
        raise TypeError(values)
    return tuple(cast(list[int], values))


def kept_for(copy: Path) -> bool:
    """Whether cuts are kept beside `copy` for its file as it is (its reading is a part's)."""
    try:
        return _kept(copy).get("identity") == _identity(copy.lstat())
    except OSError:
        return False


def _kept(copy: Path) -> dict[str, object]:
    """The cuts kept beside `copy`, parsed; {} for none, or for one that is no JSON object."""
    try:
        loaded: object = json.loads(read_own(cuts_path(copy), MOST) or b"{}")
    except (OSError, ValueError):
        return {}
    return cast(dict[str, object], loaded) if isinstance(loaded, dict) else {}


def keep(copy: Path, cuts: Cuts, limit: int) -> None:
    """Keep the cuts beside `copy` for the next event; one that cannot (a full disk) finds
    them again."""
    rows = [
        [p.start, p.end, p.first_char, p.chars, p.blank, digest]
        for p, digest in zip(cuts.parts.pieces, cuts.hashes, strict=True)
    ]
    kept = {
        "version": _VERSION, "identity": cuts.identity, "limit": limit, "done": cuts.done,
        "pieces": rows, "spans": [list(span) for span in cuts.parts.spans],
    }  # fmt: skip
    with contextlib.suppress(OSError):
        data = json.dumps(kept).encode()  # each piece's hash, where the secrets at its cuts sit
        note_clock()  # before the draft named by this pid (copy_sweep judges it by it)
        replace_durably(cuts_path(copy), data, "tmp", durable=False, mode=PRIVATE)
        cuts.kept = True


def forget(copy: Path) -> None:
    """Remove the cuts kept beside `copy` (its last part filed, or its file changed)."""
    with contextlib.suppress(OSError):
        cuts_path(copy).unlink(missing_ok=True)


def cuts_written(copy: Path, data: bytes, limit: int) -> Cuts | None:
    """The cuts of `data`, which `copy` was just written with (memidx.agents.archive_left.
    begin), found in memory, each piece hashed as it is cut, and kept beside it: a hook cut
    off while it files them leaves its session's next event the parts not filed to read, not
    the whole copy twice over (its hash and its cuts). Their parts read `data`. None when the
    copy is gone (finished meanwhile) or is no file of `data`'s size (the caller cuts alone)."""
    import stat

    hashes = list[str]()
    parts = cut(InMemory(data), limit, lambda piece: hashes.append(_sha256(piece)))
    try:
        found = copy.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode) or found.st_size != len(data):
        return None  # each piece's bytes are checked as they are read: another's file fails
    cuts = Cuts(_identity(found), parts, hashes)
    keep(copy, cuts, limit)
    return cuts


def _found(source: OnDisk, copy: Path, limit: int) -> Cuts:
    """The copy's cuts, found in one pass that hashes each piece and the whole copy."""
    whole, hashes = hashlib.sha256(), list[str]()

    def seen(data: bytes) -> None:
        whole.update(data)
        hashes.append(hashlib.sha256(data).hexdigest())

    mine = identity(source)
    parts = cut(source, limit, seen)
    named = copy_of(copy.name)
    if named is None or whole.hexdigest() != named[1] or identity(source) != mine:
        raise CopyChanged(copy)  # written in place since its hash was checked
    return Cuts(mine, parts, hashes)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Checked:
    """A copy as a Source whose pieces are checked against their hashes as they are read."""

    def __init__(self, source: OnDisk, cuts: Cuts) -> None:
        self._source = source
        pieces = cuts.parts.pieces
        self._hashes = {(p.start, p.end): h for p, h in zip(pieces, cuts.hashes, strict=True)}

    def size(self) -> int:
        return self._source.size()

    def read(self, start: int, end: int) -> bytes:
        data = self._source.read(start, end)
        expected = self._hashes.get((start, end))
        if expected is None or hashlib.sha256(data).hexdigest() != expected:
            raise CopyChanged(self._source.path)
        return data
