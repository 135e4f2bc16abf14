"""A tombstone is never forgotten: one that names another tombstone (a log written before
`memidx forget` refused them) neither drops that tombstone from the index, nor gets it blanked
by purge, so the record the first one forgets never comes back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from memidx.config import Config
from memidx.haystack.blanking import blanked
from memidx.haystack.frames import Record, frame, new_record, scan_bytes
from memidx.haystack.indexing import sync_records
from memidx.haystack.record_drift import record_drift
from memidx.index.store import Store, connect_memory


def tombstone(forgets: str) -> Record:
    return replace(new_record("forget", f"forgets {forgets}"), forgets=forgets)


def chain() -> tuple[Record, Record, Record]:
    """A record, its tombstone, and a tombstone of that tombstone."""
    gone = new_record("turn", "the zebra plan, forgotten")
    first = tombstone(gone.id)
    return gone, first, tombstone(first.id)


def test_a_tombstone_of_a_tombstone_keeps_the_first_one_and_the_record_forgotten(
    tmp_path: Path,
) -> None:
    gone, first, second = chain()
    folder = tmp_path / "notes" / "haystack" / "writer"
    folder.mkdir(parents=True)
    (folder / "2026-01-01.000.krd").write_bytes(frame(gone) + frame(first))
    (folder / "2026-01-02.000.krd").write_bytes(frame(second))
    config = Config(root=tmp_path, in_git=False)
    store = Store(connect_memory())

    sync_records(config, store, full=True)

    rows = store.conn.execute("SELECT source_kind, json_extract(meta, '$.id') FROM documents")
    assert sorted(rows) == sorted([("forget", first.id), ("forget", second.id)])
    assert record_drift(config, store, deep=True).total == 0  # reconcile --fix changes nothing


def test_purge_never_blanks_a_tombstone() -> None:
    gone, first, _ = chain()
    data = frame(gone) + frame(first)

    out, count = blanked(data, {gone.id, first.id})

    assert count == 1 and out[len(frame(gone)) :] == frame(first)
    assert [r.record.forgets for r in scan_bytes(out).records] == [None, gone.id]
