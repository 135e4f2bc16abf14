"""Forgotten records: the log is append-only, so `memidx forget` appends a tombstone (a record
of kind `forget` naming the id it forgets). The index drops the forgotten record as soon as it
reads the tombstone, and never indexes it again: on this clone at once, on every clone once
the tombstone arrives (pull, ingest), and in a rebuild, whichever segment is read first."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from memidx.drafts import read_whole
from memidx.haystack.frames import FORGET, Located, Record, scan_bytes
from memidx.haystack.segments import segments
from memidx.index.store import RecordStore, Store, VectorStore


def kept(located: Located, gone: set[str]) -> bool:
    """Whether a record read from a segment is indexed: not forgotten, or a tombstone (a
    tombstone is never forgotten, as forget_in_index never drops one: dropping it would bring
    back the record it forgets)."""
    return located.record.kind == FORGET or located.record.id not in gone


def forgotten(store: Store, records: Iterable[Located] = ()) -> set[str]:
    """The ids of forgotten records: named by tombstones in the index, or among `records`."""
    found = RecordStore(store.conn).forgotten_ids()
    found.update(r.record.forgets for r in records if r.record.forgets)
    return found


def forget_in_index(store: Store, record_id: str) -> int:
    """Drop the record with this id from the index (not its tombstone); returns how many rows."""
    rows = RecordStore(store.conn).refs_of_id(record_id)
    for kind, ref in rows:
        drop_record(store, kind, ref)
    return len(rows)


def drop_record(store: Store, kind: str, ref: str, *, forgotten: bool = True) -> None:
    """Drop a record's row and chunks; a forgotten one's also the vectors of its text that no
    other chunk holds: the cache that spares a restored note its embedding is no place for
    text forgotten for good, of which a rebuild has no vector."""
    vectors = VectorStore(store.conn)
    text_hashes = vectors.text_hashes(kind, [ref]) if forgotten else set[str]()
    store.delete(kind, [ref])
    vectors.drop_texts(text_hashes)


def tombstones_on_disk(folder: Path) -> set[str]:
    """The ids the tombstones in the segments under `folder` forget, read from the files: an
    index that has not read a pulled tombstone yet (a pull with no hooks) must not hide it."""
    return {tombstone.forgets for tombstone in _tombstones(folder) if tombstone.forgets}


def tombstone_on_disk(folder: Path, record_id: str) -> str | None:
    """The id of a tombstone in the segments under `folder` that forgets this record (the
    first found), read from the files as tombstones_on_disk; None when none does."""
    return next((t.id for t in _tombstones(folder) if t.forgets == record_id), None)


def _tombstones(folder: Path) -> Iterator[Record]:
    """The tombstones in the segments under `folder`, segment by segment."""
    for path in segments(folder):
        data = read_whole(path) or b""  # as it is: no FIFO waited on, no link followed
        if b'"forgets"' not in data:  # a tombstone's frame names the field as it is
            continue
        yield from (r.record for r in scan_bytes(data).records if r.record.kind == FORGET)
