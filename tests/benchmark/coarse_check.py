"""How often the narrow first pass (memidx/search/coarse.py) changes the answer, on real vectors:
`python -m tests.benchmark.coarse_check INDEX.sqlite [...]` reads every vector of the given
indexes (read-only), holds 200 of them back as queries (each nudged off its chunk), and compares
the ranking through the narrow pass with the full scan's, as is and replicated with a little
noise to ~40k rows (the 19k-note scale). Widths 64, 96 and 128 of 384."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memidx.search.coarse import Coarse
from memidx.search.vector_index import VectorIndex

QUERIES = 200
ROWS = 40_000
WIDTHS = (64, 96, 128)


def vectors(index: Path) -> NDArray[np.float32]:
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        blobs = [bytes(row[0]) for row in conn.execute("SELECT vector FROM vectors")]
    finally:
        conn.close()
    return np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs])


def _unit(rows: NDArray[np.floating]) -> NDArray[np.float32]:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def agreement(matrix: NDArray[np.float32], queries: NDArray[np.float32], width: int) -> str:
    rows = np.arange(matrix.shape[0], dtype=np.int64)
    index = VectorIndex(matrix, rows, rows // 2, 0)
    exact = [index.rank(q, 20, None) for q in queries]
    index.coarse = Coarse.build(matrix, width)
    found = [index.rank(q, 20, None) for q in queries]
    top10 = sum(
        [d for d, _, _ in a[:10]] == [d for d, _, _ in b[:10]]
        for a, b in zip(found, exact, strict=True)
    )
    top20 = sum(
        {d for d, _, _ in a} == {d for d, _, _ in b} for a, b in zip(found, exact, strict=True)
    )
    return f"top 10 identical {top10}/{len(queries)}, top 20 the same set {top20}/{len(queries)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("indexes", nargs="+", type=Path)
    args = parser.parse_args()
    every = np.vstack([vectors(path) for path in args.indexes])
    gram = every.T.astype(np.float64) @ every
    energy = np.cumsum(np.linalg.eigvalsh(gram)[::-1]) / np.trace(gram)
    print(f"{every.shape[0]:,} vectors; share of length kept: " + ", ".join(
        f"{w} dims {energy[w - 1]:.3f}" for w in WIDTHS))  # fmt: skip
    rng = np.random.default_rng(0)
    held = rng.choice(every.shape[0], QUERIES, replace=False)
    noise = rng.standard_normal((QUERIES, every.shape[1])).astype(np.float32)
    queries = _unit(every[held] + 0.6 * noise / np.sqrt(every.shape[1]))
    rest = np.delete(every, held, axis=0)
    copies = max(1, ROWS // rest.shape[0])
    nudged = [
        rest + 0.02 * rng.standard_normal(rest.shape).astype(np.float32) / np.sqrt(rest.shape[1])
        for _ in range(copies)
    ]  # each copy its own noise: no exact ties between copies
    wide = _unit(np.vstack(nudged))
    for label, matrix in (("as is", rest), (f"x{copies} with noise", wide)):
        for width in WIDTHS:
            print(f"{matrix.shape[0]:>7,} rows ({label}), width {width}: "
                  f"{agreement(matrix, queries, width)}")  # fmt: skip


if __name__ == "__main__":
    main()
