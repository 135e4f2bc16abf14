"""Chunks of documents and the vector cache, keyed by (chunk text hash, model)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from memidx.frozen import Value

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from memidx.notes.chunks import Chunk


FORGOTTEN_AT = "forgotten_vectors_at"  # state key: see VectorStore.drop_texts


class ChunkVectors(Value):
    """The vectors of one model for the chunks of the documents a search may return."""

    chunk_ids: list[int]
    doc_ids: list[int]
    blobs: list[bytes]
    docs_without: int


class ChunkInfo(Value):
    """Where a chunk stands in its document."""

    doc_id: int
    heading: str | None
    line: int
    text: str


class VectorStore:
    """Typed access to chunks, models and cached vectors on one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def replace_chunks(self, doc_id: int, chunks: Sequence[Chunk]) -> bool:
        """Make a document's chunks these; returns whether they differed. Chunks that are
        already these are left alone, so the vector generation (and the matrix file) stays."""
        stored = self.conn.execute(
            "SELECT seq, heading, line, text_hash FROM chunks WHERE doc_id = ? ORDER BY seq",
            (doc_id,),
        ).fetchall()
        if stored == [(c.seq, c.heading, c.line, c.text_hash) for c in chunks]:
            return False
        self.conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
        self.conn.executemany(
            "INSERT INTO chunks (doc_id, seq, heading, line, text, text_hash) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((doc_id, c.seq, c.heading, c.line, c.text, c.text_hash) for c in chunks),
        )
        return True

    def missing(self, model: str) -> list[tuple[str, str]]:
        """(text hash, text) of every distinct chunk without a vector of `model`."""
        rows = self.conn.execute(
            """SELECT c.text_hash, min(c.text) FROM chunks c
               WHERE NOT EXISTS (SELECT 1 FROM vectors v
                                 WHERE v.text_hash = c.text_hash AND v.model = ?)
               GROUP BY c.text_hash ORDER BY min(c.id)""",
            (model,),
        )
        return [(str(h), str(t)) for h, t in rows]

    def put(self, model: str, vectors: Iterable[tuple[str, bytes]]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO vectors (text_hash, model, vector) VALUES (?, ?, ?)",
            ((h, model, blob) for h, blob in vectors),
        )

    def put_held(self, model: str, vectors: Iterable[tuple[str, bytes]]) -> None:
        """Store only the vectors of texts a chunk holds now (checked in the write itself):
        an embed that read its chunks before a forget dropped them writes no vector of the
        forgotten text back."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO vectors (text_hash, model, vector) SELECT ?, ?, ? "
            "WHERE EXISTS (SELECT 1 FROM chunks WHERE text_hash = ?)",
            ((h, model, blob, h) for h, blob in vectors),
        )

    def text_hashes(self, kind: str, refs: Iterable[str]) -> set[str]:
        """The text hashes of the chunks of these documents."""
        found: set[str] = set()
        for ref in refs:
            rows = self.conn.execute(
                "SELECT c.text_hash FROM chunks c JOIN documents d ON d.id = c.doc_id "
                "WHERE d.source_kind = ? AND d.source_ref = ?",
                (kind, ref),
            )
            found.update(str(row[0]) for row in rows)
        return found

    def drop_texts(self, text_hashes: Iterable[str]) -> None:
        """Drop the vectors (any model's) of these texts that no chunk holds now: a forgotten
        note's or record's, which a rebuild of the index never has. The generation after the
        drop is kept (FORGOTTEN_AT): a vector matrix file older than it may hold them."""
        dropped = self.conn.executemany(
            "DELETE FROM vectors WHERE text_hash = ? "
            "AND NOT EXISTS (SELECT 1 FROM chunks WHERE text_hash = ?)",
            ((h, h) for h in text_hashes),
        )
        if dropped.rowcount > 0:
            self.conn.execute(
                "INSERT INTO state (key, value) SELECT ?, value FROM state WHERE key = "
                "'vector_generation' ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (FORGOTTEN_AT,),
            )

    def forgotten_at(self) -> int:
        """The vector generation after the last drop of forgotten vectors (0: none)."""
        row = self.conn.execute("SELECT value FROM state WHERE key = ?", (FORGOTTEN_AT,)).fetchone()
        return int(row[0]) if row else 0

    def model(self, name: str) -> tuple[int, str] | None:
        row = self.conn.execute(
            "SELECT dim, fingerprint FROM models WHERE model = ?", (name,)
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def set_model(self, name: str, dim: int, fingerprint: str) -> bool:
        """Record the model's identity; vectors of an earlier build of it are dropped.
        Returns True when vectors were dropped."""
        known = self.model(name)
        dropped = known is not None and known != (dim, fingerprint)
        if dropped:
            self.conn.execute("DELETE FROM vectors WHERE model = ?", (name,))
        self.conn.execute(
            "INSERT INTO models (model, dim, fingerprint) VALUES (?, ?, ?) ON CONFLICT (model) "
            "DO UPDATE SET dim = excluded.dim, fingerprint = excluded.fingerprint",
            (name, dim, fingerprint),
        )
        return dropped

    def index_id(self) -> str:
        """The random id this index was created with."""
        row = self.conn.execute("SELECT value FROM state WHERE key = 'index_id'").fetchone()
        return "" if row is None else str(row[0])

    def generation(self) -> int:
        """A counter that changes whenever a chunk or a vector does (kept by triggers)."""
        row = self.conn.execute(
            "SELECT value FROM state WHERE key = 'vector_generation'"
        ).fetchone()
        return int(row[0]) if row else 0

    def load(self, model: str) -> ChunkVectors:
        """Every chunk vector of `model` (chunk id, document id, blob), and the number of
        documents that have a chunk without one."""
        rows = self.conn.execute(
            """SELECT c.id, c.doc_id, v.vector FROM vectors v
               JOIN chunks c ON c.text_hash = v.text_hash WHERE v.model = ?""",
            (model,),
        ).fetchall()
        lacking = self.conn.execute(
            """SELECT count(DISTINCT c.doc_id) FROM chunks c WHERE NOT EXISTS
               (SELECT 1 FROM vectors v WHERE v.text_hash = c.text_hash AND v.model = ?)""",
            (model,),
        ).fetchone()[0]
        return ChunkVectors(
            [int(r[0]) for r in rows], [int(r[1]) for r in rows], [r[2] for r in rows], int(lacking)
        )

    def chunk_info(self, chunk_ids: Sequence[int]) -> dict[int, ChunkInfo]:
        marks = ", ".join("?" for _ in chunk_ids)
        rows = self.conn.execute(
            f"SELECT id, doc_id, heading, line, text FROM chunks WHERE id IN ({marks})",
            (*chunk_ids,),
        )
        return {int(i): ChunkInfo(int(d), h, int(ln), str(t)) for i, d, h, ln, t in rows}

    def headings(self, doc_ids: Sequence[int]) -> dict[int, list[tuple[int, str | None]]]:
        """(first line, heading) of each chunk of each document, in order: no chunk text."""
        marks = ", ".join("?" for _ in doc_ids)
        rows = self.conn.execute(
            f"SELECT doc_id, line, heading FROM chunks WHERE doc_id IN ({marks}) "
            "ORDER BY doc_id, seq",
            (*doc_ids,),
        )
        found: dict[int, list[tuple[int, str | None]]] = {}
        for doc_id, line, heading in rows:
            found.setdefault(int(doc_id), []).append((int(line), heading))
        return found

    def counts(self, model: str) -> tuple[int, int, int]:
        """(chunks, chunks with a vector of `model`, cached vectors of `model`)."""
        chunks = self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        covered = self.conn.execute(
            "SELECT count(*) FROM chunks c JOIN vectors v "
            "ON v.text_hash = c.text_hash AND v.model = ?",
            (model,),
        ).fetchone()[0]
        cached = self.conn.execute(
            "SELECT count(*) FROM vectors WHERE model = ?", (model,)
        ).fetchone()[0]
        return int(chunks), int(covered), int(cached)

    def prune(self, keep_model: str) -> int:
        """Drop cached vectors no chunk uses, and vectors of other models; returns the count."""
        before = self.conn.total_changes
        self.drop_unused()
        self.conn.execute("DELETE FROM vectors WHERE model != ?", (keep_model,))
        self.conn.execute("DELETE FROM models WHERE model != ?", (keep_model,))
        return self.conn.total_changes - before

    def drop_unused(self) -> None:
        """Drop the cached vectors of text no chunk holds (any model's)."""
        self.conn.execute(
            "DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)"
        )
