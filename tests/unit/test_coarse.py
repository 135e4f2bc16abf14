"""The narrow first pass over many vectors (memidx/search/coarse.py) and VectorIndex's use of it:
the same documents, cosines and chunks as the full scan, in the same order (cosines to float
rounding: the two scans are separate BLAS calls)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from memidx.search.coarse import MIN_ROWS, Coarse, worth_it
from memidx.search.vector_index import VectorIndex

DIM = 384


def _unit(rows: NDArray[np.floating]) -> NDArray[np.float32]:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _corpus(rows: int, seed: int = 7) -> NDArray[np.float32]:
    """Vectors shaped like a text embedder's: most of their length on a few dozen directions."""
    rng = np.random.default_rng(seed)
    topics = rng.standard_normal((48, DIM)).astype(np.float32)
    mix = rng.standard_normal((rows, 48)).astype(np.float32) ** 3  # a few topics per row
    return _unit(mix @ topics + 0.3 * rng.standard_normal((rows, DIM)).astype(np.float32))


def _index(matrix: NDArray[np.float32], chunks_per_doc: int = 3) -> VectorIndex:
    rows = matrix.shape[0]
    return VectorIndex(
        matrix,
        np.arange(1000, 1000 + rows, dtype=np.int64),
        np.arange(rows, dtype=np.int64) // chunks_per_doc,
        0,
    )


Ranked = list[tuple[int, float, int]]


def _agree(found: Ranked, expected: Ranked) -> bool:
    """The same documents and chunks in the same order, the same cosines to 1e-6."""
    return [(d, c) for d, _, c in found] == [(d, c) for d, _, c in expected] and np.allclose(
        [s for _, s, _ in found], [s for _, s, _ in expected], atol=1e-6
    )


def _queries(matrix: NDArray[np.float32], count: int) -> list[NDArray[np.float32]]:
    rng = np.random.default_rng(11)
    picked = matrix[rng.choice(matrix.shape[0], count, replace=False)]
    noisy = picked + 0.5 * rng.standard_normal(picked.shape).astype(np.float32) / np.sqrt(DIM)
    return list(_unit(noisy))


def test_the_narrow_pass_keeps_the_exact_best_rows_among_its_candidates() -> None:
    matrix = _corpus(12_000)
    coarse = Coarse.build(matrix)
    assert coarse.narrow.shape == (12_000, 96)
    for query in _queries(matrix, 30):
        exact = set(np.argsort(-(matrix @ query))[:50].tolist())
        assert exact <= set(coarse.candidates(query, 512).tolist())


def test_ranking_through_the_narrow_pass_equals_the_full_scan() -> None:
    index = _index(_corpus(12_000))
    queries = _queries(index.matrix, 40)
    full = [index.rank(q, 20, None) for q in queries]
    index.build_coarse()
    assert index.coarse is not None
    for query, expected in zip(queries, full, strict=True):
        assert _agree(index.rank(query, 20, None), expected)


def test_the_ranking_reads_the_narrow_pass_when_there_is_one() -> None:
    """A narrow pass that points away from the best rows changes the answer: rank uses it."""
    index = _index(_corpus(12_000))
    query = _queries(index.matrix, 1)[0]
    full = index.rank(query, 20, None)
    index.build_coarse()
    assert index.coarse is not None
    flipped = Coarse(-index.coarse.basis, index.coarse.narrow)  # ranks the worst rows first
    index.coarse = flipped
    assert [d for d, _, _ in index.rank(query, 20, None)] != [d for d, _, _ in full]


def test_too_few_documents_among_the_candidates_falls_back_to_the_full_scan() -> None:
    """One document owns every chunk near the query: the candidates hold fewer than `depth`
    documents, and the full scan answers."""
    matrix = _corpus(12_000)
    near = _unit(matrix[0] + 0.01 * np.random.default_rng(3).standard_normal((2_000, DIM)))
    matrix = np.vstack([near, matrix[2_000:]]).astype(np.float32)
    doc_ids = np.concatenate([np.zeros(2_000, dtype=np.int64), np.arange(1, 10_001)])
    index = VectorIndex(matrix, np.arange(12_000, dtype=np.int64), doc_ids, 0)
    query = matrix[0]
    full = index.rank(query, 20, None)
    index.build_coarse()
    assert _agree(index.rank(query, 20, None), full)
    assert len(full) == 20


def test_tied_documents_are_all_found_and_in_a_stable_order() -> None:
    """Forty documents with one and the same vector: the narrow pass finds every one, and asks
    the same query twice in the same order (which of the tied comes first is float rounding)."""
    matrix = _corpus(12_000)
    matrix[5_000:5_040] = matrix[77]
    index = _index(matrix, chunks_per_doc=1)
    full = index.rank(matrix[77], 50, None)
    index.build_coarse()
    found = index.rank(matrix[77], 50, None)
    assert {d for d, _, _ in found[:41]} == {d for d, _, _ in full[:41]}
    assert found == index.rank(matrix[77], 50, None)


def test_filters_and_chunk_lists_scan_in_full() -> None:
    index = _index(_corpus(12_000))
    query = _queries(index.matrix, 1)[0]
    allowed = set(range(0, 4_000, 2))
    expected = (index.rank(query, 20, allowed), index.rank(query, 20, None, chunks=True))
    index.build_coarse()
    index.coarse = Coarse(-index.coarse.basis, index.coarse.narrow) if index.coarse else None
    assert index.rank(query, 20, allowed) == expected[0]
    assert index.rank(query, 20, None, chunks=True) == expected[1]


def test_only_many_vectors_get_a_narrow_pass() -> None:
    assert not worth_it(MIN_ROWS - 1)
    assert worth_it(MIN_ROWS)


def test_a_second_thread_scanning_half_the_rows_finds_the_same_candidates() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from memidx.search.coarse import SPLIT_ROWS

    matrix = _corpus(SPLIT_ROWS + 1_000)
    coarse = Coarse.build(matrix)
    with ThreadPoolExecutor(1) as pool:
        for query in _queries(matrix, 5):
            alone = set(coarse.candidates(query, 512).tolist())
            assert set(coarse.candidates(query, 512, pool).tolist()) == alone
            assert max(coarse.candidates(query, 512, pool).tolist()) >= SPLIT_ROWS // 2


def test_a_long_lived_process_builds_the_narrow_pass_in_the_background_once() -> None:
    import time
    from concurrent.futures import ThreadPoolExecutor

    small, large = _index(_corpus(MIN_ROWS - 1)), _index(_corpus(MIN_ROWS))
    with ThreadPoolExecutor(1) as pool:
        small.start_coarse(pool)
        large.start_coarse(pool)
        deadline = time.monotonic() + 60
        while large.coarse is None and time.monotonic() < deadline:
            time.sleep(0.05)
        built = large.coarse
        large.start_coarse(pool)  # once: the pass already built stays
        assert built is not None and large.coarse is built and large.pool is pool
    assert small.coarse is None and small.pool is None


def test_best_chunk_cosines_read_through_the_document_index_are_the_masks() -> None:
    matrix = _corpus(12_000)
    rng = np.random.default_rng(5)
    doc_ids = np.sort(rng.integers(0, 3_000, 12_000)).astype(np.int64)
    rng.shuffle(doc_ids)  # a document's chunks anywhere in the matrix
    index = VectorIndex(matrix, np.arange(12_000, dtype=np.int64), doc_ids, 0)
    query = _queries(matrix, 1)[0]
    docs = [int(d) for d in doc_ids[:12]] + [999_999]  # one without vectors
    expected = index.cosines(query, docs)
    index.build_coarse()
    assert index.coarse is not None and index.coarse.by_doc is not None
    assert index.cosines(query, docs) == expected
    assert 999_999 not in expected and len(expected) == len(set(docs)) - 1
    index.coarse = Coarse(index.coarse.basis, index.coarse.narrow)  # no document index: masks
    assert index.cosines(query, docs) == expected
