"""Hard tests of the haystack's promises, written by a tester who did not write it: the index
is expendable (a rebuild from notes and segments gives the same index), a torn tail loses only
the record being appended, concurrent filers and a purge beside them lose nothing, and
forgetting holds through a second forget, a rebuild, a pull and a second clone."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

# the index's own bookkeeping, not what it holds: when and how often it was written, its random
# identity (a new index is a new one: vector files name it), and a shortcut of incremental syncs
# (the indexed commit's parents, known only when a hook stepped to it)
BUILD_STATE = {
    "build_started", "build_completed", "indexed_at", "vector_generation", "index_id",
    "adds_parents",
}  # fmt: skip


def file_turn(repo: NotesRepo, payload: dict[str, object]) -> dict[str, object]:
    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps(payload))
    assert run.code == 0, run.err
    filed: dict[str, object] = run.json()
    return filed


def index_dump(repo: NotesRepo) -> dict[str, object]:
    """Everything the index holds, keyed by what names it (kind and ref), never by row id:
    documents, chunks, the full-text index's terms, state, segments, skipped files, note adds."""
    index = repo.root / ".memidx" / "index.sqlite"
    copy = index.with_name("dump.sqlite")
    with closing(sqlite3.connect(index)) as source, closing(sqlite3.connect(copy)) as target:
        source.backup(target)  # a consistent copy, -wal included
    try:
        with closing(sqlite3.connect(copy)) as conn:
            return _dump(conn)
    finally:
        copy.unlink()


def _dump(conn: sqlite3.Connection) -> dict[str, object]:
    names = {
        row[0]: (row[1], row[2])
        for row in conn.execute("SELECT id, source_kind, source_ref FROM documents")
    }
    documents = sorted(
        tuple(row)
        for row in conn.execute(
            "SELECT source_kind, source_ref, title, tags, aliases, body, body_line, "
            "content_hash, blob_id, meta FROM documents"
        )
    )
    chunks = sorted(
        (*names[row[0]], *row[1:])
        for row in conn.execute("SELECT doc_id, seq, heading, line, text, text_hash FROM chunks")
    )
    conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, documents_fts, instance)")
    terms = sorted(
        (*names[row[1]], *row[0:1], *row[2:])
        for row in conn.execute("SELECT term, doc, col, offset FROM temp.terms")
    )
    check = conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('integrity-check')")
    check.close()
    state = sorted(
        tuple(row) for row in conn.execute("SELECT key, value FROM state") if row[0] not in BUILD_STATE
    )
    tables = {
        table: sorted(tuple(row) for row in conn.execute(f"SELECT * FROM {table}"))  # noqa: S608
        for table in ("segments", "skipped", "note_adds", "models", "vectors")
    }
    return {"documents": documents, "chunks": chunks, "terms": terms, "state": state, **tables}


def rebuild(repo: NotesRepo) -> None:
    shutil.rmtree(repo.root / ".memidx")
    run = repo.memidx_process("ingest")
    assert run.code == 0, run.err


@pytest.fixture
def memory(repo: NotesRepo) -> Iterator[NotesRepo]:
    repo.note("docker.md", "Docker cache", "COPY invalidates the cache of later layers")
    repo.note("ops/keys.md", "Key rotation", "rotate the deploy key every quarter", ["ops"])
    repo.commit("notes")
    assert repo.memidx_process("ingest").code == 0
    yield repo


def test_deleting_the_index_and_ingesting_rebuilds_it_exactly(memory: NotesRepo) -> None:
    """README, "Index maintenance": the index is expendable. Notes, turns (some committed,
    some not), a transcript with a compaction summary, a note summarising it, a forgotten
    record, a purged one and a forgotten note: the rebuilt index holds the same rows."""
    repo = memory
    for i in range(3):
        file_turn(repo, {"user": f"question {i} on caches", "assistant": f"answer {i}",
                         "agent": "claude", "session": "s-1", "tags": ["docker"]})  # fmt: skip
    transcript = repo.root.parent / "transcript.txt"
    transcript.write_text("USER: pick the threshold\nASSISTANT: 0.8, measured on August 3rd\n")
    archived = repo.memidx_process(
        "archive-transcript", str(transcript), "--agent", "claude", "--session", "s-1", "--json"
    )
    assert archived.code == 0, archived.err
    transcript_id = archived.json()["id"]
    file_turn(repo, {"text": "the threshold is 0.8", "summary_of": transcript_id,
                     "tags": ["claude", "compact-summary"], "session": "s-1"})  # fmt: skip
    remembered = subprocess.run(
        [str(MEMIDX_BIN), "remember", "--title", "Compression threshold", "--summary-of",
         transcript_id],
        cwd=repo.root, env=clean_env(MEMIDX_ROOT=str(repo.root)), input="use 0.8\n",
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert remembered.returncode == 0, remembered.stderr
    assert repo.memidx_process("haystack", "commit").code == 0
    forgotten = file_turn(repo, {"text": "zebra secret to forget"})
    purged = file_turn(repo, {"text": "okapi secret to purge"})
    file_turn(repo, {"text": "a turn filed after the commit"})
    assert repo.memidx_process("forget", str(forgotten["id"])).code == 0
    assert repo.memidx_process("forget", str(purged["ref"])).code == 0
    assert repo.memidx_process("haystack", "purge").code == 0, "nothing of it was pushed"
    assert repo.memidx_process("forget", "notes/ops/keys.md").code == 0
    assert repo.memidx_process("sync").code == 0
    before = index_dump(repo)

    rebuild(repo)

    after = index_dump(repo)
    for table in before:
        assert after[table] == before[table], (table, before[table], after[table])

    # the lost .memidx/ took the writer id with it: the next filing takes a fresh one and the
    # segments no commit holds with it (README, "Log format"); a rebuild after that is exact too
    file_turn(repo, {"text": "filed by the fresh writer id"})
    assert repo.memidx_process("sync").code == 0
    taken = index_dump(repo)
    rebuild(repo)
    again = index_dump(repo)
    for table in taken:
        assert again[table] == taken[table], (table, taken[table], again[table])
    for words in ("zebra", "okapi", "rotate"):
        found = repo.memidx_process("search", "--json", "--mode", "bm25", words)
        assert found.code == 0 and found.json()["hits"] == [], (words, found.out)
    shown = repo.memidx_process("show", str(forgotten["id"]))
    assert shown.code == 1 and "forgotten" in shown.err, shown.err
