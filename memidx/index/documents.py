"""Typed reads and writes of documents, skipped files, state and full-text search."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from memidx.frozen import Value
from memidx.index.drift import DocState, Skip
from memidx.index.filters import Filters, filter_sql

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any

    from memidx.index.upgrade_room import RoomWait

# Title and tags say what a note is about; the body only mentions things. bm25 weights per
# column, in the order of the FTS table: title, tags, aliases, body.
BM25_WEIGHTS = (8.0, 6.0, 6.0, 1.0)
TIE_SLACK = 8  # scores kept past the limit, so that ties at the cut are seen whole


class NewDocument(Value):
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


class LexicalRow(Value):
    """One document matched by FTS5, best first."""

    id: int
    source_kind: str
    source_ref: str
    title: str
    tags: tuple[str, ...]
    body_line: int
    meta: dict[str, object]
    score: float


class Store:
    """Typed access to one index connection (one per thread)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.room_wait: RoomWait | None = None  # the wait for room its opening found (once)

    # -- documents -------------------------------------------------------------------------
    def document_states(self, kind: str) -> dict[str, DocState]:
        rows = self.conn.execute(
            "SELECT source_ref, id, content_hash, blob_id FROM documents WHERE source_kind = ?",
            (kind,),
        )
        return {ref: DocState(i, h, b) for ref, i, h, b in rows}

    def states_of(self, kind: str, refs: Sequence[str]) -> dict[str, DocState]:
        """What the index knows of these refs only (work proportional to a change)."""
        rows = self._of_refs(
            "SELECT source_ref, id, content_hash, blob_id FROM documents", kind, refs
        )
        return {ref: DocState(i, h, b) for ref, i, h, b in rows}

    def skips_of(self, kind: str, refs: Sequence[str]) -> dict[str, Skip]:
        rows = self._of_refs("SELECT source_ref, blob_id, reason FROM skipped", kind, refs)
        return {ref: Skip(kind, ref, blob, reason) for ref, blob, reason in rows}

    def _of_refs(self, select: str, kind: str, refs: Sequence[str]) -> list[tuple[Any, ...]]:
        """`select` restricted to one kind and these refs, in batches under SQLite's limit."""
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(refs), 500):
            part = refs[start : start + 500]
            marks = ", ".join("?" for _ in part)
            sql = f"{select} WHERE source_kind = ? AND source_ref IN ({marks})"
            rows += self.conn.execute(sql, (kind, *part)).fetchall()
        return rows

    def upsert(self, doc: NewDocument) -> tuple[int, bool]:
        """Insert or update one document, keeping its row id. A row is rewritten when any stored
        field differs, not only its content: another note reader may read the same file into
        other tags, aliases, body or lines. Returns the row id and whether anything was written."""
        before = self.conn.total_changes
        self.conn.execute(
            """INSERT INTO documents (source_kind, source_ref, title, tags, aliases, body,
                   body_line, content_hash, blob_id, meta)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (source_kind, source_ref) DO UPDATE SET
                   title = excluded.title, tags = excluded.tags, aliases = excluded.aliases,
                   body = excluded.body, body_line = excluded.body_line,
                   content_hash = excluded.content_hash, blob_id = excluded.blob_id,
                   meta = excluded.meta
               WHERE (documents.title, documents.tags, documents.aliases, documents.body,
                      documents.body_line, documents.content_hash, documents.blob_id,
                      documents.meta)
                  IS NOT (excluded.title, excluded.tags, excluded.aliases, excluded.body,
                      excluded.body_line, excluded.content_hash, excluded.blob_id,
                      excluded.meta)""",
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
        changed = self.conn.total_changes != before
        row = self.conn.execute(
            "SELECT id FROM documents WHERE source_kind = ? AND source_ref = ?",
            (doc.source_kind, doc.source_ref),
        ).fetchone()
        return int(row[0]), changed

    def rename(self, kind: str, old_ref: str, new_ref: str) -> None:
        """Move a document to a new ref, keeping its row id and everything derived from it."""
        self.conn.execute(
            "UPDATE documents SET source_ref = ? WHERE source_kind = ? AND source_ref = ?",
            (new_ref, kind, old_ref),
        )

    def delete(self, kind: str, refs: Iterable[str]) -> None:
        """Delete documents and their chunks (cached vectors stay: they are keyed by content)."""
        pairs = [(kind, ref) for ref in refs]
        self.conn.executemany(
            "DELETE FROM chunks WHERE doc_id IN "
            "(SELECT id FROM documents WHERE source_kind = ? AND source_ref = ?)",
            pairs,
        )
        self.conn.executemany(
            "DELETE FROM documents WHERE source_kind = ? AND source_ref = ?", pairs
        )

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return int(self.conn.execute("SELECT count(*) FROM documents").fetchone()[0])
        sql = "SELECT count(*) FROM documents WHERE source_kind = ?"
        return int(self.conn.execute(sql, (kind,)).fetchone()[0])

    def kinds(self) -> dict[str, int]:
        """Documents per kind."""
        rows = self.conn.execute(
            "SELECT source_kind, count(*) FROM documents GROUP BY source_kind ORDER BY 1"
        )
        return {str(k): int(n) for k, n in rows}

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
        where, params = filter_sql(filters)
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        if where or limit <= 0:
            rows = self._joined(match, where, params, limit, weights)
        else:
            rows = self._best_unfiltered(match, limit, weights)
        return [
            LexicalRow(i, k, r, t, tuple(json.loads(tg)), bl, json.loads(m), -float(s))
            for i, k, r, t, tg, bl, m, s in rows
        ]

    def _joined(
        self, match: str, where: str, params: Sequence[object], limit: int, weights: str
    ) -> list[Any]:
        """Every match joined with its document, filtered, then ranked: the plain way."""
        return self.conn.execute(
            f"""SELECT d.id, d.source_kind, d.source_ref, d.title, d.tags, d.body_line,
                       d.meta, bm25(documents_fts, {weights}) AS score
                FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid
                WHERE documents_fts MATCH ? {where}
                ORDER BY score, d.source_ref LIMIT ?""",
            (match, *params, limit),
        ).fetchall()

    def _best_unfiltered(self, match: str, limit: int, weights: str) -> list[Any]:
        """The best `limit` matches by (bm25, ref), ranking before joining the documents table:
        an OR of common words matches thousands of documents at 19k notes. SQLite keeps the
        best `limit + TIE_SLACK` scores alone (7.7k matches: 8.5 against 11 ms when every score
        was kept); that is exact unless the ties of the last score kept may go on past it."""
        rows = self.conn.execute(
            f"""WITH f AS (
                    SELECT rowid AS id, bm25(documents_fts, {weights}) AS score
                    FROM documents_fts WHERE documents_fts MATCH ? ORDER BY score LIMIT ?)
                SELECT d.id, d.source_kind, d.source_ref, d.title, d.tags, d.body_line,
                       d.meta, f.score
                FROM f LEFT JOIN documents d ON d.id = f.id
                ORDER BY f.score, d.source_ref""",
            (match, limit + TIE_SLACK),
        ).fetchall()
        if any(row[0] is None for row in rows):  # the full-text side names a row the table
            return self._joined(match, "", [], limit, weights)  # lacks (damage): every row
        if len(rows) < limit + TIE_SLACK or rows[-1][7] > rows[limit - 1][7]:
            return rows[:limit]
        # Ties straddle what was kept: every score, then only the best and their ties joined.
        return self.conn.execute(
            f"""WITH f AS MATERIALIZED (
                    SELECT rowid AS id, bm25(documents_fts, {weights}) AS score
                    FROM documents_fts WHERE documents_fts MATCH ?),
                cut AS (SELECT score FROM f ORDER BY score LIMIT 1 OFFSET ?)
                SELECT d.id, d.source_kind, d.source_ref, d.title, d.tags, d.body_line,
                       d.meta, f.score
                FROM f JOIN documents d ON d.id = f.id
                WHERE f.score <= coalesce((SELECT score FROM cut), 1e308)
                ORDER BY f.score, d.source_ref LIMIT ?""",
            (match, limit - 1, limit),
        ).fetchall()

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

    def rows(self, ids: Sequence[int]) -> dict[int, LexicalRow]:
        """Documents by row id (score 0), for hits that full-text search did not rank."""
        marks = ", ".join("?" for _ in ids)
        rows = self.conn.execute(
            f"""SELECT id, source_kind, source_ref, title, tags, body_line, meta
                FROM documents WHERE id IN ({marks})""",
            (*ids,),
        )
        return {
            int(i): LexicalRow(i, k, r, t, tuple(json.loads(tg)), bl, json.loads(m), 0.0)
            for i, k, r, t, tg, bl, m in rows
        }

    def allowed(self, filters: Filters) -> set[int]:
        """Row ids of the documents that pass `filters`."""
        where, params = filter_sql(filters)
        rows = self.conn.execute(f"SELECT d.id FROM documents d WHERE 1 {where}", params)
        return {int(r[0]) for r in rows}

    def bodies(self, ids: Sequence[int]) -> dict[int, str]:
        marks = ", ".join("?" for _ in ids)
        rows = self.conn.execute(f"SELECT id, body FROM documents WHERE id IN ({marks})", (*ids,))
        return {int(i): str(b) for i, b in rows}
