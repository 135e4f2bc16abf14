"""The index's schema: its tables as one SQL script, its version and the migrations from older
versions, what makes a database file unusable as an index of this version, and whether its
build (creation and first filling) ever completed."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from memidx.index.connection import add_fold, describe, passing, transaction
from memidx.index.schema_version import SCHEMA_VERSION, newer_index
from memidx.notes.separators import TOKENIZER

EMPTY = "the file is empty"
OUTDATED = "its schema version"  # how the problem of an intact index of an older version starts
# state keys: set when the index is created (in the same transaction) and when its first
# filling is done; an index with the first and not the second was never completely built
BUILD_STARTED = "build_started"
BUILD_COMPLETED = "build_completed"

_TABLES = """
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    source_kind TEXT NOT NULL,
    source_ref TEXT NOT NULL,
    title TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    aliases TEXT NOT NULL DEFAULT '[]',
    body TEXT NOT NULL,
    body_line INTEGER NOT NULL DEFAULT 1,
    content_hash TEXT NOT NULL,
    blob_id TEXT,
    meta TEXT NOT NULL DEFAULT '{}',
    UNIQUE (source_kind, source_ref)
);
CREATE TABLE skipped (
    source_kind TEXT NOT NULL,
    source_ref TEXT NOT NULL,
    blob_id TEXT,
    content_hash TEXT,
    reason TEXT NOT NULL,
    PRIMARY KEY (source_kind, source_ref)
);
CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    heading TEXT,
    line INTEGER NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    UNIQUE (doc_id, seq)
);
CREATE INDEX chunks_text_hash ON chunks (text_hash, doc_id, id);
CREATE TABLE models (
    model TEXT PRIMARY KEY,
    dim INTEGER NOT NULL,
    fingerprint TEXT NOT NULL
);
"""
# A rowid table: a WITHOUT ROWID row keeps ~1 KB of itself in the b-tree page (a quarter of it)
# and spills the rest of a 1,536-byte vector to an overflow page of its own, ~4.7 KB a vector;
# here two rows fill a page, ~2.2 KB a vector with the lookup index (schema 6)
VECTORS = """
CREATE TABLE vectors (
    id INTEGER PRIMARY KEY,
    text_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (text_hash, model)
);
"""
# The full-text index of the documents' columns as memidx_fold reads them (folded by
# connection.add_fold; the same character count per word, so snippet() of the stored text marks
# the words found), split into words as memidx.notes.separators says
FTS = f"""
CREATE VIRTUAL TABLE documents_fts USING fts5(
    title, tags, aliases, body,
    content='documents', content_rowid='id',
    tokenize="{TOKENIZER}"
);
CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
    INSERT INTO documents_fts(rowid, title, tags, aliases, body)
    VALUES (new.id, memidx_fold(new.title), memidx_fold(new.tags), memidx_fold(new.aliases),
            memidx_fold(new.body));
END;
CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, tags, aliases, body)
    VALUES ('delete', old.id, memidx_fold(old.title), memidx_fold(old.tags),
            memidx_fold(old.aliases), memidx_fold(old.body));
END;
CREATE TRIGGER documents_au AFTER UPDATE OF title, tags, aliases, body ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, tags, aliases, body)
    VALUES ('delete', old.id, memidx_fold(old.title), memidx_fold(old.tags),
            memidx_fold(old.aliases), memidx_fold(old.body));
    INSERT INTO documents_fts(rowid, title, tags, aliases, body)
    VALUES (new.id, memidx_fold(new.title), memidx_fold(new.tags), memidx_fold(new.aliases),
            memidx_fold(new.body));
END;
"""
# version 2: the lookup by content hash, and how far each haystack segment is indexed
SEGMENTS = """
CREATE INDEX documents_content_hash ON documents (content_hash);
CREATE TABLE segments (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    records INTEGER NOT NULL
);
"""
# version 3: the commits that added each note's path (memidx.index.added), filled by the next sync
NOTE_ADDS = """
CREATE TABLE note_adds (
    path TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (path, commit_id)
) WITHOUT ROWID;
CREATE INDEX note_adds_commit ON note_adds (commit_id);
"""
# every change of a chunk or a vector bumps vector_generation (VectorStore.generation)
_BUMPS = (("chunks", "INSERT"), ("chunks", "DELETE"),
          ("vectors", "INSERT"), ("vectors", "DELETE"), ("vectors", "UPDATE"))  # fmt: skip


def generation_triggers(table: str) -> str:
    """The triggers by which every change of `table` bumps the vector generation."""
    return "".join(
        f"CREATE TRIGGER {table}_generation_a{event[0].lower()} AFTER {event} ON {table} BEGIN\n"
        "    UPDATE state SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vector_generation';\n"
        "END;\n"
        for bumped, event in _BUMPS
        if bumped == table
    )


_GENERATION = (
    "INSERT INTO state (key, value) VALUES ('vector_generation', '0');\n"
    + generation_triggers("chunks")
    + generation_triggers("vectors")
)
SCHEMA = _TABLES + VECTORS + FTS + SEGMENTS + NOTE_ADDS + _GENERATION


def connect_memory() -> sqlite3.Connection:
    """An in-memory index with the current schema (tests and benchmarks)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    add_fold(conn)
    create_schema(conn)
    return conn


def schema_problem(
    conn: sqlite3.Connection, path: Path | None, *, oldest: int = SCHEMA_VERSION
) -> str | None:
    """Why this database is not a usable index of the current schema (or, to a reader, of one
    from `oldest` on), or None; NewerIndex when a newer memidx built it (nothing this code may
    rebuild, upgrade or write)."""
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version == 0 and not tables:
            return EMPTY
        if version > SCHEMA_VERSION:  # never a reason to rebuild it: its vectors would go
            raise newer_index(path or ":memory:", version)
        if version < oldest:
            return f"{OUTDATED} {version} is not {SCHEMA_VERSION}"
        if path is not None and _truncated(conn, path):
            return "the file is truncated"
        # the last row, not count(*): that walks the whole table (~3 ms at 19k notes, paid by
        # every search and hook); ingest's verify reads every page
        conn.execute("SELECT max(rowid) FROM documents").fetchone()
        conn.execute("SELECT rowid FROM documents_fts WHERE documents_fts MATCH 'x' LIMIT 1")
    except sqlite3.DatabaseError as exc:
        if passing(exc):  # a full disk or a lock says nothing about the file
            raise
        return describe(exc)
    return None


def build_problem(conn: sqlite3.Connection) -> str | None:
    """Why the index is not completely built (its creation or first filling was interrupted,
    or is still running), or None. An index from before memidx recorded its builds counts as
    built once a sync recorded when it indexed."""
    found = dict(
        conn.execute(
            "SELECT key, value FROM state WHERE key IN (?, ?, 'indexed_at')",
            (BUILD_STARTED, BUILD_COMPLETED),
        ).fetchall()
    )
    if BUILD_STARTED in found:
        if BUILD_COMPLETED in found:
            return None
        return (
            f"its build started at {found[BUILD_STARTED]} and has not completed "
            "(interrupted, or still running)"
        )
    return None if "indexed_at" in found else "it was never filled"


def mark_built(conn: sqlite3.Connection) -> None:
    """Record that the index is completely built (once: a no-op when it already is)."""
    if build_problem(conn) is None:
        return
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)", (BUILD_COMPLETED, _now())
        )


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def damage(conn: sqlite3.Connection) -> str | None:
    """Damage the quick checks miss, found by reading every page (PRAGMA quick_check)."""
    try:
        result = str(conn.execute("PRAGMA quick_check(1)").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        if passing(exc):
            raise
        return describe(exc)
    return None if result == "ok" else f"the file is damaged ({result})"


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the tables of an empty database, with a random id of this index (files derived
    from the index carry it, so they are never taken for those of a rebuilt one) and the time
    its build started: until a writer marks it built, readers refuse it."""
    with transaction(conn):
        for statement in statements(SCHEMA):
            conn.execute(statement)
        conn.execute(
            "INSERT INTO state (key, value) VALUES ('index_id', ?)", (os.urandom(16).hex(),)
        )
        conn.execute("INSERT INTO state (key, value) VALUES (?, ?)", (BUILD_STARTED, _now()))
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def statements(script: str) -> Iterator[str]:
    """The statements of an SQL script, one at a time."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""


def _truncated(conn: sqlite3.Connection, path: Path) -> bool:
    if Path(f"{path}-wal").exists() and Path(f"{path}-wal").stat().st_size > 0:
        return False
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    return path.stat().st_size < pages * page_size
