"""nfcorpus-part: only documents whose every chunk has a vector, and their vectors copied."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from tests.benchmark.beir_part import copy_vectors, embedded

SCHEMA = """
CREATE TABLE documents (id INTEGER PRIMARY KEY, source_ref TEXT);
CREATE TABLE chunks (id INTEGER PRIMARY KEY, doc_id INTEGER, text_hash TEXT);
CREATE TABLE models (model TEXT PRIMARY KEY, dim INTEGER, fingerprint TEXT);
CREATE TABLE vectors (text_hash TEXT, model TEXT, vector BLOB, PRIMARY KEY (text_hash, model));
"""


def index(path: Path, docs: dict[str, list[str]], vectors: list[str]) -> Path:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.executescript(SCHEMA)
        for doc_id, (ref, hashes) in enumerate(docs.items(), start=1):
            conn.execute("INSERT INTO documents VALUES (?, ?)", (doc_id, ref))
            conn.executemany(
                "INSERT INTO chunks (doc_id, text_hash) VALUES (?, ?)",
                [(doc_id, h) for h in hashes],
            )
        conn.execute("INSERT INTO models VALUES ('m', 2, 'f')")
        conn.executemany("INSERT INTO vectors VALUES (?, 'm', x'00')", [(h,) for h in vectors])
    return path


def test_a_document_counts_once_every_chunk_has_a_vector(tmp_path: Path) -> None:
    docs = {"notes/a.md": ["h1", "h2"], "notes/b.md": ["h3"], "notes/c.md": ["h4", "h5"]}
    source = index(tmp_path / "full.sqlite", docs, ["h1", "h2", "h4"])
    assert embedded(source, "m") == ["notes/a.md"]
    assert embedded(source, "other") == []


def test_the_part_gets_the_vectors_its_chunks_need(tmp_path: Path) -> None:
    source = index(
        tmp_path / "full.sqlite", {"notes/a.md": ["h1"], "notes/c.md": ["h4"]}, ["h1", "h4"]
    )
    part = index(tmp_path / "part.sqlite", {"notes/a.md": ["h1"]}, [])
    with closing(sqlite3.connect(part)) as conn, conn:
        conn.execute("DELETE FROM models")
    copy_vectors(source, part)
    with closing(sqlite3.connect(part)) as conn:
        assert conn.execute("SELECT text_hash FROM vectors").fetchall() == [("h1",)]
        assert conn.execute("SELECT * FROM models").fetchall() == [("m", 2, "f")]
