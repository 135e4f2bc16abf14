"""After memidx reads notes or records differently, the next sync (a hook, `sync`, `reconcile
--fix`, `ingest`) makes every row of an existing index what a fresh rebuild gives, and keeps the
vectors of chunk text that did not change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memidx.embed.job import embed_missing
from memidx.haystack.frames import frame, new_record
from memidx.index.store import Store, VectorStore, open_store, transaction
from memidx.index.sync import SETTINGS
from memidx.notes.chunks import chunk_document
from tests.helpers import FakeEmbedder, NotesRepo
from tests.index_rows import OLDER_BODY, SWITCHES, index_rows


def plant_older_rows(store: Store) -> None:
    """What an older memidx left: the note read before YAML 1.2 booleans (tags, aliases, body,
    line numbers and chunks), the turn's tags stored as filed, neither reader recorded."""
    conn = store.conn
    with transaction(conn):
        conn.execute(
            "UPDATE documents SET tags = ?, aliases = ?, body = ?, body_line = ? "
            "WHERE source_ref = 'notes/switches.md'",
            ('["true", "false"]', '["true", "false"]', OLDER_BODY, 9),
        )
        (doc,) = conn.execute("SELECT id FROM documents WHERE source_ref = 'notes/switches.md'")
        conn.execute("DELETE FROM chunks WHERE doc_id = ?", doc)
        conn.executemany(
            "INSERT INTO chunks (doc_id, seq, heading, line, text, text_hash) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((doc[0], c.seq, c.heading, c.line, c.text, c.text_hash)
             for c in chunk_document("Switches", OLDER_BODY, 9)),
        )  # fmt: skip
        conn.execute(
            "UPDATE documents SET tags = ? WHERE source_kind = 'turn'", (json.dumps(["#Build"]),)
        )
        store.set_state(SETTINGS, "notes_dir=notes; max_note_bytes=1048576; note_reader=1")
        conn.execute("DELETE FROM state WHERE key = 'record_reader'")


def rows_at(path: Path) -> dict[str, object]:
    store, _ = open_store(path, write=False)
    try:
        return index_rows(store)
    finally:
        store.conn.close()


@pytest.mark.parametrize(
    "command", [("hook", "post-commit"), ("sync",), ("reconcile", "--fix"), ("ingest",)]
)
def test_after_a_reader_change_every_row_becomes_what_a_rebuild_gives(
    repo: NotesRepo, tmp_path: Path, command: tuple[str, ...]
) -> None:
    repo.write("notes/switches.md", SWITCHES)
    repo.note("other.md", "Other", "unrelated words")
    turn = new_record("turn", "the build cache was invalidated", tags=("#Build",))
    repo.write("notes/haystack/writer/2026-01-01.000.krd", frame(turn))  # filed uncleaned
    repo.commit()
    assert repo.memidx("ingest").code == 0
    index = repo.root / ".memidx" / "index.sqlite"
    store, _ = open_store(index, write=True)
    embed_missing(store, FakeEmbedder())
    plant_older_rows(store)
    store.conn.close()
    fresh = tmp_path / "fresh.sqlite"
    rebuilt = repo.memidx_process("ingest", MEMIDX_INDEX=str(fresh))
    assert rebuilt.code == 0, rebuilt.err
    assert rows_at(index) != rows_at(fresh)  # the older rows took

    run = repo.memidx_process(*command, MEMIDX_HOOK_EMBED="0")

    assert run.code == 0, run.out + run.err
    assert rows_at(index) == rows_at(fresh)
    store, _ = open_store(index, write=False)
    assert VectorStore(store.conn).missing(FakeEmbedder().name) == []  # kept, not embedded again
    store.conn.close()
    assert repo.memidx("reconcile").code == 0
