"""Forgotten records: the log is append-only, so `memidx forget` appends a tombstone (a record
of kind `forget` naming the id it forgets). The index drops the forgotten record as soon as it
reads the tombstone, and never indexes it again: on this clone at once, on every clone once
the tombstone arrives (pull, ingest), and in a rebuild, whichever segment is read first."""

from __future__ import annotations

from collections.abc import Iterable

from memidx.haystack.frames import Located
from memidx.index.store import RecordStore, Store

FORGET = "forget"


def forgotten(store: Store, records: Iterable[Located] = ()) -> set[str]:
    """The ids of forgotten records: named by tombstones in the index, or among `records`."""
    found = RecordStore(store.conn).forgotten_ids()
    found.update(r.record.forgets for r in records if r.record.forgets)
    return found


def forget_in_index(store: Store, record_id: str) -> int:
    """Drop the record with this id from the index (not its tombstone); returns how many rows."""
    rows = RecordStore(store.conn).refs_of_id(record_id)
    for kind, ref in rows:
        store.delete(kind, [ref])
    return len(rows)
