"""What purge blanks besides whole records: the copies of a forgotten record's text that a
crash left torn. A filing cut by a crash leaves its frame's first bytes, which the next append
moves into `.memidx/torn/<segment>.torn`; the turn is then filed again, whole, under a new id
(the hook reads the transcript again). Forgetting that record must take the torn copy too."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from memidx.config import Config
from memidx.drafts import read_own, read_whole, replace_durably
from memidx.errors import MemidxError
from memidx.haystack.blanking import blanked_torn, records_of
from memidx.haystack.frames import Record
from memidx.haystack.indexing import haystack_folder
from memidx.haystack.kept import COPY_SUFFIX, KEPT
from memidx.haystack.segments import SEGMENT_SUFFIX, segments
from memidx.haystack.writer import TORN

# the hashes of forgotten records' texts, one per line, in the state folder (never committed)
HASHES = "forgotten-hashes"
MAX_HASHES = 64 << 20  # bytes: a million forgotten texts


def with_hashes(places: Sequence[Config], forgotten: set[str], records: list[Record]) -> set[str]:
    """The forgotten ids and the content hashes of their texts: those of `records` (what
    forgotten_records read in `places`, the purge's work tree first, before any segment or
    copy is blanked), kept in the state folder (HASHES) of each that has one before this
    returns, and those kept before. A blanked frame's hash is that of spaces, so a purge
    killed after blanking would otherwise lose them: its next run, and `haystack commit`
    finishing it (stored_hashes), blank the same bytes it did."""
    found = {record.hash for record in records}
    for there in places:
        if there.state_dir.is_dir():
            known = stored_hashes(there)
            if not found <= known:
                lines = "".join(f"{h}\n" for h in sorted(known | found))
                replace_durably(
                    there.state_dir / HASHES, lines.encode(), "tmp", durable=there.fsync
                )
    return forgotten | found | stored_hashes(places[0])


def stored_hashes(config: Config) -> set[str]:
    """The hashes of forgotten texts an earlier purge of this work tree kept (with_hashes)."""
    path = config.state_dir / HASHES
    data = read_own(path, MAX_HASHES)  # as it is: a FIFO there hung every purge
    if data is None:
        if not os.path.lexists(path):
            return set()
        raise MemidxError(  # not read as none: a killed purge's torn copies would stay
            f"{path}: not a file memidx wrote (a FIFO, a link, a folder, or over "
            f"{MAX_HASHES} bytes)",
            "move it aside and run the purge again with the same ids",
        )
    return {line for line in data.decode("ascii", "replace").split() if len(line) == 64}


def blank_torn_files(config: Config, forgotten: set[str]) -> int:
    """Blank the torn tails in the work tree's `.torn` files that name a forgotten record
    (`forgotten` as with_hashes gives it), each file replaced whole; how many tails. Call it
    holding the work tree's writer lock: the writer appends to these files."""
    count = 0
    for path in _torn_files(config):
        new, blanked = blanked_torn(read_whole(path) or b"", forgotten)  # a FIFO: no tail
        if blanked:
            replace_durably(path, new, "purge", durable=config.fsync)
            count += blanked
    return count


def holds_torn(config: Config, forgotten: set[str]) -> bool:
    """Whether a `.torn` file of the work tree holds a tail blank_torn_files would blank."""
    return any(blanked_torn(read_whole(path) or b"", forgotten)[1] for path in _torn_files(config))


def _torn_files(config: Config) -> list[Path]:
    folder = config.state_dir / TORN
    return sorted(folder.glob("*.torn")) if folder.is_dir() else []


def forgotten_ids(config: Config) -> set[str]:
    """The ids of the forgotten records: named by a tombstone the index read, or one in the
    segment files (pulled, maybe not yet indexed)."""
    from memidx.haystack.forgotten import tombstones_on_disk
    from memidx.index.store import RecordStore, open_store

    store, _ = open_store(config.index_path, write=False)
    try:
        found = RecordStore(store.conn).forgotten_ids()
    finally:
        store.conn.close()
    return found | tombstones_on_disk(haystack_folder(config))


def forgotten_records(places: Iterable[Config], ids: set[str]) -> list[Record]:
    """The records with these ids whose text the segments or kept copies of the work trees
    of `places` still hold (read before a purge blanks them)."""
    return records_of(_bytes_of(places), ids)


def _bytes_of(places: Iterable[Config]) -> Iterator[bytes]:
    """The bytes of each segment and kept copy of each work tree of `places`."""
    for there in places:
        for path in [*segments(haystack_folder(there)), *_copies(there.state_dir / KEPT)]:
            yield _read(path)


def _copies(kept: Path) -> list[Path]:
    return sorted(kept.glob(f"*/*{SEGMENT_SUFFIX}{COPY_SUFFIX}")) if kept.is_dir() else []


def _read(path: Path) -> bytes:
    return read_whole(path) or b""  # gone since the listing (a copy dropped), or a FIFO
