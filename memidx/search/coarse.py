"""A coarse first pass over many vectors, for long-lived processes (pure: arrays in and out).

Scanning every chunk vector is bound by memory bandwidth: 40k chunks of 384 float32 are 61 MB
read per query, 6-8 ms on this kind of machine. The vectors are projected once onto their
principal directions (the leading eigenvectors of X^T X: the basis that keeps the most of every
inner product), a quarter of the width; a query scans the narrow copy, then scores only the
best few hundred chunks exactly. The exact scores decide the ranking, so the projection can
only lose a chunk that the narrow scan put outside its candidates. On 5.8k real vectors of the
packaged model (TIL and NFCorpus chunks), 96 of 384 dimensions keep 76 % of the length, and
on 39k rows the top 10 equalled the full scan's for 200 of 200 queries, the top 20's set for
199 (64 dimensions: 198 and 195); `python -m tests.benchmark.coarse_check INDEX...`."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

WIDTH = 96  # dimensions kept of 384 (measured: see the module's docstring)
MIN_ROWS = 10_000  # below this the exact scan takes under 2 ms and needs no first pass
CANDIDATES = 512  # chunks scored exactly after the narrow scan (at least depth * 25)
_BLOCK = 8_192  # rows per step while building, to bound the float64 copy
SPLIT_ROWS = 20_000  # from here a second thread scans half the rows (see candidates)


@dataclass(frozen=True, slots=True)
class Coarse:
    """The projection of one matrix: `basis` (dim x width), `narrow` (rows x width)."""

    basis: NDArray[np.float32]
    narrow: NDArray[np.float32]
    by_doc: NDArray[np.intp] | None = None  # row positions ordered by document (rows_of)
    docs: NDArray[np.int64] | None = None  # the documents in that order

    @classmethod
    def build(
        cls,
        matrix: NDArray[np.float32],
        width: int = WIDTH,
        doc_ids: NDArray[np.int64] | None = None,
    ) -> Coarse:
        """Project `matrix` (rows x dim) onto its `width` leading principal directions; with
        `doc_ids` (each row's document), also index the rows by document."""
        dim = matrix.shape[1]
        width = min(width, dim)
        gram = np.zeros((dim, dim), dtype=np.float64)
        for start in range(0, matrix.shape[0], _BLOCK):
            block = np.asarray(matrix[start : start + _BLOCK], dtype=np.float64)
            gram += block.T @ block
        _, vectors = np.linalg.eigh(gram)  # ascending eigenvalues
        basis = np.ascontiguousarray(vectors[:, ::-1][:, :width], dtype=np.float32)
        narrow = np.ascontiguousarray(matrix @ basis, dtype=np.float32)
        if doc_ids is None:
            return cls(basis, narrow)
        by_doc = np.argsort(doc_ids, kind="stable")
        return cls(basis, narrow, by_doc, doc_ids[by_doc])

    def rows_of(self, docs: NDArray[np.int64]) -> NDArray[np.intp] | None:
        """The positions of every row of `docs`, in the matrix's order (what a mask of
        np.isin gives, without reading every row's document); None when not indexed."""
        if self.by_doc is None or self.docs is None:
            return None
        starts = np.searchsorted(self.docs, docs, side="left")
        ends = np.searchsorted(self.docs, docs, side="right")
        pieces = [self.by_doc[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        return np.sort(np.concatenate(pieces)) if pieces else np.zeros(0, dtype=np.intp)

    def candidates(
        self, query: NDArray[np.float32], take: int, pool: Executor | None = None
    ) -> NDArray[np.intp]:
        """Positions of the `take` rows whose narrow score is highest (in no order). With a
        `pool` and many rows, its thread scans half of them: one thread alone does not get
        all of the memory's bandwidth, and numpy lets go of the GIL while it multiplies."""
        narrow_query = query @ self.basis
        rows = self.narrow.shape[0]
        if pool is not None and rows >= SPLIT_ROWS:
            half = rows // 2
            other = pool.submit(np.matmul, self.narrow[half:], narrow_query)
            scores = np.concatenate([self.narrow[:half] @ narrow_query, other.result()])
        else:
            scores = self.narrow @ narrow_query
        if take >= scores.size:
            return np.arange(scores.size)
        return np.argpartition(-scores, take - 1)[:take]


def worth_it(rows: int) -> bool:
    """Whether a first pass pays for itself on this many vectors."""
    return rows >= MIN_ROWS
