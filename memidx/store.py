"""The only SQL in memidx: connection, schema, migrations and typed reads and writes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memidx.errors import IndexBusy, IndexUnusable

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 5000
REBUILD_HINT = "run `make ingest` (or `memidx ingest`) to rebuild it"

# Title and tags say what a note is about; the body only mentions things. bm25 weights per
# column, in the order of the FTS table: title, tags, aliases, body.
BM25_WEIGHTS = (8.0, 6.0, 6.0, 1.0)

SCHEMA = """
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
CREATE VIRTUAL TABLE documents_fts USING fts5(
    title, tags, aliases, body,
    content='documents', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
    INSERT INTO documents_fts(rowid, title, tags, aliases, body)
    VALUES (new.id, new.title, new.tags, new.aliases, new.body);
END;
CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, tags, aliases, body)
    VALUES ('delete', old.id, old.title, old.tags, old.aliases, old.body);
END;
CREATE TRIGGER documents_au AFTER UPDATE OF title, tags, aliases, body ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, tags, aliases, body)
    VALUES ('delete', old.id, old.title, old.tags, old.aliases, old.body);
    INSERT INTO documents_fts(rowid, title, tags, aliases, body)
    VALUES (new.id, new.title, new.tags, new.aliases, new.body);
END;
CREATE TABLE skipped (
    source_kind TEXT NOT NULL,
    source_ref TEXT NOT NULL,
    blob_id TEXT,
    content_hash TEXT,
    reason TEXT NOT NULL,
    PRIMARY KEY (source_kind, source_ref)
);
CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class DocState:
    """What the index knows of one document, enough to tell whether it is stale."""

    id: int
    content_hash: str
    blob_id: str | None


@dataclass(frozen=True, slots=True)
class Skip:
    """A file the index knows about but could not index."""

    source_kind: str
    source_ref: str
    blob_id: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class NewDocument:
    """A document to upsert."""

    source_kind: str
    source_ref: str
    title: str
    tags: Sequence[str]
    aliases: Sequence[str]
    body: str
    body_line: int
    content_hash: str
    blob_id: str | None
    meta: dict[str, object]


@dataclass(frozen=True, slots=True)
class LexicalRow:
    """One document matched by FTS5, best first."""

    id: int
    source_kind: str
    source_ref: str
    title: str
    tags: tuple[str, ...]
    body_line: int
    meta: dict[str, object]
    score: float


@dataclass(frozen=True, slots=True)
class Filters:
    """Restrictions applied to every search mode."""

    kind: str | None = None
    path_prefix: str | None = None
    tag: str | None = None


def connect(path: Path, *, create: bool) -> sqlite3.Connection:
    """Open the index; with create=False a missing file is IndexUnusable, never a new file."""
    if not create and not path.is_file():
        raise IndexUnusable(f"no index at {path}", REBUILD_HINT)
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    uri = f"{path.resolve().as_uri()}?mode={'rwc' if create else 'rw'}"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as exc:
        raise _unusable(path, exc) from exc
    return conn


def connect_memory() -> sqlite3.Connection:
    """An in-memory index with the current schema (tests and benchmarks)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(conn)
    return conn


def schema_problem(conn: sqlite3.Connection, path: Path | None) -> str | None:
    """Why this database is not a usable index of the current schema, or None."""
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version == 0 and not tables:
            return "the file is empty"
        if version != SCHEMA_VERSION:
            return f"its schema version {version} is not {SCHEMA_VERSION}"
        if path is not None and _truncated(conn, path):
            return "the file is truncated"
        conn.execute("SELECT count(*) FROM documents").fetchone()
        conn.execute("SELECT rowid FROM documents_fts WHERE documents_fts MATCH 'x' LIMIT 1")
    except sqlite3.DatabaseError as exc:
        return _describe(exc)
    return None


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the tables of an empty database."""
    with transaction(conn):
        for statement in _statements(SCHEMA):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _statements(script: str) -> Iterator[str]:
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


def _describe(exc: sqlite3.DatabaseError) -> str:
    text = str(exc)
    if "not a database" in text:
        return "the file is not an SQLite database"
    if "malformed" in text:
        return "the file is damaged (database disk image is malformed)"
    return text


def _unusable(path: Path, exc: sqlite3.DatabaseError) -> IndexUnusable:
    return IndexUnusable(f"the index at {path} is unusable: {_describe(exc)}", REBUILD_HINT)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Generator[None]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; a held lock is IndexBusy."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise IndexBusy(
                "the index is locked by another memidx process",
                "wait for it to finish, then try again",
            ) from exc
        raise
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class Store:
    """Typed access to one index connection (one per thread)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    # -- documents -------------------------------------------------------------------------
    def document_states(self, kind: str) -> dict[str, DocState]:
        rows = self.conn.execute(
            "SELECT source_ref, id, content_hash, blob_id FROM documents WHERE source_kind = ?",
            (kind,),
        )
        return {ref: DocState(i, h, b) for ref, i, h, b in rows}

    def upsert(self, doc: NewDocument) -> int:
        """Insert or update one document, keeping its row id; unchanged content is not rewritten."""
        self.conn.execute(
            """INSERT INTO documents (source_kind, source_ref, title, tags, aliases, body,
                   body_line, content_hash, blob_id, meta)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (source_kind, source_ref) DO UPDATE SET
                   title = excluded.title, tags = excluded.tags, aliases = excluded.aliases,
                   body = excluded.body, body_line = excluded.body_line,
                   content_hash = excluded.content_hash, blob_id = excluded.blob_id,
                   meta = excluded.meta
               WHERE documents.content_hash != excluded.content_hash
                  OR documents.blob_id IS NOT excluded.blob_id""",
            (
                doc.source_kind,
                doc.source_ref,
                doc.title,
                json.dumps(list(doc.tags), ensure_ascii=False),
                json.dumps(list(doc.aliases), ensure_ascii=False),
                doc.body,
                doc.body_line,
                doc.content_hash,
                doc.blob_id,
                json.dumps(doc.meta, ensure_ascii=False, sort_keys=True),
            ),
        )
        row = self.conn.execute(
            "SELECT id FROM documents WHERE source_kind = ? AND source_ref = ?",
            (doc.source_kind, doc.source_ref),
        ).fetchone()
        return int(row[0])

    def rename(self, kind: str, old_ref: str, new_ref: str) -> None:
        """Move a document to a new ref, keeping its row id and everything derived from it."""
        self.conn.execute(
            "UPDATE documents SET source_ref = ? WHERE source_kind = ? AND source_ref = ?",
            (new_ref, kind, old_ref),
        )

    def delete(self, kind: str, refs: Iterable[str]) -> None:
        self.conn.executemany(
            "DELETE FROM documents WHERE source_kind = ? AND source_ref = ?",
            ((kind, ref) for ref in refs),
        )

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return int(self.conn.execute("SELECT count(*) FROM documents").fetchone()[0])
        sql = "SELECT count(*) FROM documents WHERE source_kind = ?"
        return int(self.conn.execute(sql, (kind,)).fetchone()[0])

    def document_rows(self, kind: str) -> list[tuple[object, ...]]:
        """Every stored column of every document of a kind, ordered by ref (for comparisons)."""
        return self.conn.execute(
            """SELECT source_kind, source_ref, title, tags, aliases, body, body_line,
                      content_hash, blob_id, meta
               FROM documents WHERE source_kind = ? ORDER BY source_ref""",
            (kind,),
        ).fetchall()

    # -- skipped files ---------------------------------------------------------------------
    def skips(self, kind: str) -> dict[str, Skip]:
        rows = self.conn.execute(
            "SELECT source_ref, blob_id, reason FROM skipped WHERE source_kind = ?", (kind,)
        )
        return {ref: Skip(kind, ref, blob, reason) for ref, blob, reason in rows}

    def record_skip(self, skip: Skip) -> None:
        self.conn.execute(
            """INSERT INTO skipped (source_kind, source_ref, blob_id, reason) VALUES (?, ?, ?, ?)
               ON CONFLICT (source_kind, source_ref) DO UPDATE SET
                   blob_id = excluded.blob_id, reason = excluded.reason""",
            (skip.source_kind, skip.source_ref, skip.blob_id, skip.reason),
        )

    def clear_skips(self, kind: str, refs: Iterable[str]) -> None:
        self.conn.executemany(
            "DELETE FROM skipped WHERE source_kind = ? AND source_ref = ?",
            ((kind, ref) for ref in refs),
        )

    # -- state -----------------------------------------------------------------------------
    def get_state(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_state(self, key: str, value: str | None) -> None:
        if value is None:
            self.conn.execute("DELETE FROM state WHERE key = ?", (key,))
        else:
            self.conn.execute(
                "INSERT INTO state (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- search ----------------------------------------------------------------------------
    def lexical(self, match: str, filters: Filters, limit: int) -> list[LexicalRow]:
        """Documents matching an FTS5 expression, best bm25 first."""
        where, params = _filter_sql(filters)
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        rows = self.conn.execute(
            f"""SELECT d.id, d.source_kind, d.source_ref, d.title, d.tags, d.body_line, d.meta,
                       bm25(documents_fts, {weights}) AS score
                FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid
                WHERE documents_fts MATCH ? {where}
                ORDER BY score, d.id LIMIT ?""",
            (match, *params, limit),
        ).fetchall()
        return [
            LexicalRow(i, k, r, t, tuple(json.loads(tg)), bl, json.loads(m), -float(s))
            for i, k, r, t, tg, bl, m, s in rows
        ]

    def snippets(self, match: str, ids: Sequence[int], start: str, end: str) -> dict[int, str]:
        """A body snippet around the matched terms of each document, with the terms marked."""
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = self.conn.execute(
            f"""SELECT rowid, snippet(documents_fts, 3, ?, ?, '…', 24) FROM documents_fts
                WHERE documents_fts MATCH ? AND rowid IN ({marks})""",
            (start, end, match, *ids),
        )
        return {int(i): str(s) for i, s in rows}

    def bodies(self, ids: Sequence[int]) -> dict[int, str]:
        marks = ", ".join("?" for _ in ids)
        rows = self.conn.execute(f"SELECT id, body FROM documents WHERE id IN ({marks})", (*ids,))
        return {int(i): str(b) for i, b in rows}


def _filter_sql(filters: Filters) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    if filters.kind:
        clauses.append("AND d.source_kind = ?")
        params.append(filters.kind)
    if filters.path_prefix:
        clauses.append("AND substr(d.source_ref, 1, ?) = ?")
        params += [len(filters.path_prefix), filters.path_prefix]
    if filters.tag:
        clauses.append("AND EXISTS (SELECT 1 FROM json_each(d.tags) WHERE value = ?)")
        params.append(filters.tag.lower().lstrip("#"))
    return " ".join(clauses), params


def open_store(path: Path, *, write: bool) -> tuple[Store, str | None]:
    """Open the index. Writers rebuild an unusable one and get a one-line notice; readers get
    IndexUnusable, never an empty result that hides a broken index."""
    problem: str | None
    try:
        conn = connect(path, create=write)
    except IndexUnusable as exc:
        if not write or not path.exists():
            raise
        problem = exc.message.rpartition(": ")[2]
    else:
        problem = schema_problem(conn, path)
        if problem is None:
            return Store(conn), None
        conn.close()
        if not write:
            raise IndexUnusable(f"the index at {path} is unusable: {problem}", REBUILD_HINT)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    conn = connect(path, create=True)
    create_schema(conn)
    notice = (
        None if problem == "the file is empty" else f"rebuilding the index at {path}: {problem}"
    )
    return Store(conn), notice
