"""After a change of note reader, record reader or settings, every row equals what a fresh
rebuild gives: rows an older version wrote are read again, documents, full-text rows and chunks
alike, and the vectors of chunk text that did not change are kept."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.haystack.frames import frame, new_record
from memidx.haystack.indexing import sync_records
from memidx.haystack.record_drift import record_drift
from memidx.index.store import Store, VectorStore, connect_memory, transaction
from memidx.index.sync import SETTINGS, ingest, note_source, reconcile, sync
from memidx.notes.chunks import chunk_document
from tests.helpers import FakeEmbedder
from tests.index_rows import OLDER_BODY, SWITCHES, index_rows, rebuilt_rows

OLDER_SETTINGS = "notes_dir=notes; max_note_bytes=1048576; note_reader=1"
REF = "notes/switches.md"


@pytest.fixture
def config(tmp_path: Path) -> Config:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "switches.md").write_text(SWITCHES, encoding="utf-8")
    (tmp_path / "notes" / "other.md").write_text("# Other\n\nunrelated words\n", encoding="utf-8")
    turns = tmp_path / "notes" / "haystack" / "writer"
    turns.mkdir(parents=True)
    old_turn = new_record("turn", "the build cache was invalidated", tags=("#Build", " Docker "))
    (turns / "2026-01-01.000.krd").write_bytes(frame(old_turn))  # filed before tags were cleaned
    return Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)


@pytest.fixture
def built(config: Config) -> Iterator[Store]:
    """An index as the current version builds it."""
    store = Store(connect_memory())
    ingest(config, store, note_source(config))
    sync_records(config, store, full=True)
    yield store
    store.conn.close()


def doc_id(store: Store, ref: str) -> int:
    row = store.conn.execute("SELECT id FROM documents WHERE source_ref = ?", (ref,)).fetchone()
    return int(row[0])


def plant_older_note(store: Store, *, fields: bool = True) -> None:
    """Make the note's row what the note reader before YAML 1.2 booleans wrote: other tags,
    aliases, body and line numbers (with `fields`), and chunks of that body."""
    with transaction(store.conn):
        if fields:
            store.conn.execute(
                "UPDATE documents SET tags = ?, aliases = ?, body = ?, body_line = ? "
                "WHERE source_ref = ?",
                ('["true", "false"]', '["true", "false"]', OLDER_BODY, 9, REF),
            )
        older = chunk_document("Switches", OLDER_BODY, 9)
        store.conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id(store, REF),))
        store.conn.executemany(
            "INSERT INTO chunks (doc_id, seq, heading, line, text, text_hash) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((doc_id(store, REF), c.seq, c.heading, c.line, c.text, c.text_hash) for c in older),
        )
        store.set_state(SETTINGS, OLDER_SETTINGS)


def plant_older_record(store: Store) -> None:
    """Make the turn's row what a version that stored tags as filed wrote, in an index from
    before the record reader was recorded."""
    with transaction(store.conn):
        store.conn.execute(
            "UPDATE documents SET tags = ? WHERE source_kind = 'turn'",
            (json.dumps(["#Build", " Docker "]),),
        )
        store.conn.execute("DELETE FROM state WHERE key = 'record_reader'")


def run_sync(config: Config, store: Store) -> None:
    sync(config, store)
    sync_records(config, store)


def run_reconcile(config: Config, store: Store) -> None:
    reconcile(config, store, note_source(config), fix=True)
    sync_records(config, store, full=True)


def run_ingest(config: Config, store: Store) -> None:
    ingest(config, store, note_source(config))
    sync_records(config, store, full=True)


RUNS: list[Callable[[Config, Store], None]] = [run_sync, run_reconcile, run_ingest]


@pytest.mark.parametrize("run", RUNS)
def test_a_note_row_an_older_reader_wrote_becomes_what_a_rebuild_gives(
    config: Config, built: Store, run: Callable[[Config, Store], None]
) -> None:
    plant_older_note(built)
    assert index_rows(built) != rebuilt_rows(config)  # the older rows took

    run(config, built)

    assert index_rows(built) == rebuilt_rows(config)


@pytest.mark.parametrize("run", RUNS)
def test_chunks_an_older_reader_made_are_made_again(
    config: Config, built: Store, run: Callable[[Config, Store], None]
) -> None:
    plant_older_note(built, fields=False)  # the document reads the same, its chunks did not

    run(config, built)

    assert index_rows(built) == rebuilt_rows(config)


@pytest.mark.parametrize("run", RUNS)
def test_record_tags_an_older_version_stored_uncleaned_are_cleaned(
    config: Config, built: Store, run: Callable[[Config, Store], None]
) -> None:
    plant_older_record(built)
    assert record_drift(config, built, deep=True).stale == 1

    run(config, built)

    assert index_rows(built) == rebuilt_rows(config)
    assert record_drift(config, built, deep=True).total == 0


def test_reading_again_keeps_the_vectors_of_unchanged_chunk_text(
    config: Config, built: Store
) -> None:
    embedder = FakeEmbedder()
    embed_missing(built, embedder)
    kept = built.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    plant_older_note(built)
    plant_older_record(built)

    run_sync(config, built)

    assert VectorStore(built.conn).missing(embedder.name) == []  # nothing to embed again
    assert built.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == kept
