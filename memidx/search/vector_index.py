"""Every chunk vector of one model, loaded once per process, and how a query ranks them: in
full, or through the narrow first pass (coarse.py) in long-lived processes."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memidx.embed.embedders import Embedder
from memidx.embed.matrix import current_stamp, map_matrix, matrix_path, read_matrix
from memidx.index.store import Store
from memidx.search.coarse import CANDIDATES, Coarse, worth_it
from memidx.search.fusion import best_chunks, top_chunks


@dataclass(slots=True)
class VectorIndex:
    """Every chunk vector of one model, loaded once per process."""

    matrix: NDArray[np.float32]
    chunk_ids: NDArray[np.int64]
    doc_ids: NDArray[np.int64]
    docs_without: int
    coarse: Coarse | None = None  # a narrow first pass, once built (coarse.py)
    pool: Executor | None = None  # a thread that may scan half of the narrow pass

    @classmethod
    def load(cls, store: Store, index_path: Path, embedder: Embedder) -> VectorIndex:
        """From the matrix file when it is current, else from SQLite."""
        stamp = current_stamp(store.conn, embedder.name, embedder.fingerprint)
        loaded = map_matrix(matrix_path(index_path, embedder.name), stamp)
        if loaded is None:
            loaded, _ = read_matrix(store.conn, embedder.name, embedder.dim)
        return cls(loaded.vectors, loaded.chunk_ids, loaded.doc_ids, loaded.docs_without)

    def rank(
        self, query: NDArray[np.float32], depth: int, allowed: set[int] | None, chunks: bool = False
    ) -> list[tuple[int, float, int]]:
        """(doc id, cosine of its best chunk, chunk id), best first; with `chunks`, every top
        chunk of the `depth` best documents (top_chunks)."""
        coarse = self.coarse
        if coarse is not None and allowed is None and not chunks:
            found = self._rank_coarse(coarse, query, depth)
            if found is not None:
                return found
        matrix, doc_ids, chunk_ids = self.matrix, self.doc_ids, self.chunk_ids
        if allowed is not None:
            wanted = np.fromiter(allowed, dtype=np.int64, count=len(allowed))
            keep = np.isin(doc_ids, wanted)
            matrix, doc_ids, chunk_ids = matrix[keep], doc_ids[keep], chunk_ids[keep]
        ranked = (top_chunks if chunks else best_chunks)(matrix @ query, doc_ids, depth)
        return [(doc, score, int(chunk_ids[pos])) for doc, score, pos in ranked]

    def _rank_coarse(
        self, coarse: Coarse, query: NDArray[np.float32], depth: int
    ) -> list[tuple[int, float, int]] | None:
        """rank() through the narrow first pass: the best candidates scored exactly, taken in
        the matrix's order (the same query ranks the same way every time); None when they hold
        too few documents."""
        positions = np.sort(coarse.candidates(query, max(CANDIDATES, depth * 25), self.pool))
        ranked = best_chunks(self.matrix[positions] @ query, self.doc_ids[positions], depth)
        if len(ranked) < depth:
            return None
        return [(doc, score, int(self.chunk_ids[positions[pos]])) for doc, score, pos in ranked]

    def start_coarse(self, pool: Executor) -> None:
        """Build the narrow first pass on a background thread, once, when there are enough
        vectors (a fraction of a second of CPU at 40k chunks: for long-lived processes,
        after their first search, so that neither a server's start nor that search waits;
        searches scan in full until it is there)."""
        if self.pool is not None or not worth_it(len(self.chunk_ids)):
            return
        self.pool = pool  # idle once the query is embedded: it scans half the rows
        threading.Thread(target=self.build_coarse, name="memidx-coarse", daemon=True).start()

    def build_coarse(self) -> None:
        """Build the narrow first pass now (start_coarse does it on a thread)."""
        try:
            self.coarse = Coarse.build(self.matrix, doc_ids=self.doc_ids)
        except (MemoryError, ValueError, np.linalg.LinAlgError):
            self.coarse = None  # the full scan goes on: slower, never wrong

    def cosines(self, query: NDArray[np.float32], docs: Sequence[int]) -> dict[int, float]:
        """The cosine of each document's best chunk; documents without vectors are absent."""
        return {doc: best for doc, (best, _) in self.best_two(query, docs).items()}

    def best_two(
        self, query: NDArray[np.float32], docs: Sequence[int]
    ) -> dict[int, tuple[float, float]]:
        """The cosines of each document's best and second-best chunk (a document with one
        chunk: its cosine twice); documents without vectors are absent."""
        if not docs:
            return {}
        wanted = np.asarray(docs, dtype=np.int64)
        rows = self.coarse.rows_of(wanted) if self.coarse is not None else None
        keep = np.isin(self.doc_ids, wanted) if rows is None else rows
        best: dict[int, tuple[float, float]] = {}
        for doc, cosine in zip(
            self.doc_ids[keep].tolist(), (self.matrix[keep] @ query).tolist(), strict=True
        ):
            first, second = best.get(doc, (-2.0, -2.0))
            if cosine > first:
                best[doc] = (cosine, first)
            elif cosine > second:
                best[doc] = (first, cosine)
        return {
            doc: (first, first if second < -1.0 else second)
            for doc, (first, second) in best.items()
        }
