"""Reciprocal Rank Fusion and best-chunk ranking as pure functions on hand-built inputs."""

from __future__ import annotations

import numpy as np
import pytest

from memidx.search.fusion import (
    Fusion,
    best_chunks,
    best_chunks_exact,
    convex,
    first_each,
    fuse_rankings,
    rrf,
    top_chunks,
)
from memidx.search.lexical import by_coverage


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = dict(rrf([["a", "b", "c"], ["b", "d"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)
    assert fused["d"] == pytest.approx(1 / 62)


def test_rrf_ranks_agreement_first() -> None:
    # b is second in both lists; a and c are first in one list each.
    order = [item for item, _ in rrf([["a", "b", "x"], ["c", "b", "y"]])]
    assert order[0] == "b"
    assert set(order[1:3]) == {"a", "c"}


def test_rrf_ties_keep_first_appearance() -> None:
    assert [item for item, _ in rrf([["a"], ["b"]])] == ["a", "b"]
    assert [item for item, _ in rrf([["b"], ["a"]])] == ["b", "a"]


def test_rrf_weights_favour_one_ranking() -> None:
    order = [item for item, _ in rrf([["lex"], ["vec"]], weights=[1.0, 2.0])]
    assert order == ["vec", "lex"]


def test_rrf_with_empty_rankings_is_empty_or_the_other() -> None:
    assert rrf([[], []]) == []
    assert [i for i, _ in rrf([[], ["a", "b"]])] == ["a", "b"]


def test_rrf_needs_one_weight_per_ranking() -> None:
    with pytest.raises(ValueError, match="one weight"):
        rrf([["a"], ["b"]], weights=[1.0])


def test_best_chunks_scores_a_document_by_its_best_chunk() -> None:
    sims = np.array([0.1, 0.9, 0.5, 0.8, 0.2], dtype=np.float32)
    docs = np.array([1, 1, 2, 2, 3], dtype=np.int64)
    assert best_chunks(sims, docs, 3) == [
        (1, pytest.approx(0.9), 1),
        (2, pytest.approx(0.8), 3),
        (3, pytest.approx(0.2), 4),
    ]


def test_best_chunks_handles_documents_with_many_chunks() -> None:
    rng = np.random.default_rng(3)
    sims = rng.random(5000).astype(np.float32)
    docs = np.concatenate([np.zeros(4990, dtype=np.int64), np.arange(1, 11, dtype=np.int64)])
    assert best_chunks(sims, docs, 5) == best_chunks_exact(sims, docs, 5)
    assert len(best_chunks(sims, docs, 11)) == 11


def test_best_chunks_of_nothing_is_empty() -> None:
    assert best_chunks(np.zeros(0, np.float32), np.zeros(0, np.int64), 5) == []


def test_convex_normalises_each_list_before_mixing() -> None:
    fused = dict(convex([("a", 10.0), ("b", 5.0), ("c", 0.0)], [("c", 0.9), ("a", 0.1)], 0.5))
    assert fused == pytest.approx({"a": 0.5, "b": 0.25, "c": 0.5})


def test_convex_alpha_picks_the_side() -> None:
    words, meaning = [("w", 2.0), ("m", 1.0)], [("m", 0.9), ("w", 0.1)]
    assert [i for i, _ in convex(words, meaning, 1.0)] == ["w", "m"]
    assert [i for i, _ in convex(words, meaning, 0.0)] == ["m", "w"]


def test_convex_of_single_scores_and_empty_lists() -> None:
    assert convex([], []) == []
    assert convex([("a", 3.0)], []) == [("a", 0.5)]


def test_top_chunks_keeps_every_chunk_of_the_best_documents() -> None:
    sims = np.array([0.1, 0.9, 0.5, 0.8, 0.2, 0.7], dtype=np.float32)
    docs = np.array([1, 1, 2, 2, 3, 1], dtype=np.int64)
    # doc 1's chunks 0.9 and 0.7 both count; the walk stops at doc 3, the third document
    assert [(d, p) for d, _, p in top_chunks(sims, docs, 2)] == [(1, 1), (2, 3), (1, 5), (2, 2)]
    assert top_chunks(np.zeros(0, np.float32), np.zeros(0, np.int64), 3) == []


def test_chunk_level_rrf_counts_each_chunk_of_a_note() -> None:
    words = [("a", 3.0), ("b", 2.0)]
    meaning = [("b", 0.9), ("c", 0.8), ("b", 0.7)]
    note_level = [k for k, _ in fuse_rankings(words, first_each(meaning), Fusion())]
    chunk_level = dict(fuse_rankings(words, meaning, Fusion(chunks=True)))
    assert note_level == ["b", "a", "c"]
    assert chunk_level["b"] == pytest.approx(1 / 62 + 1 / 61 + 1 / 63)


def test_fuse_by_meaning_alone_and_by_convex() -> None:
    meaning = [("m", 0.9), ("w", 0.5), ("m", 0.4)]
    assert fuse_rankings(None, meaning, Fusion()) == [("m", 0.9), ("w", 0.5)]
    words = [("w", 2.0), ("m", 1.0)]
    assert [k for k, _ in fuse_rankings(words, meaning, Fusion(method="convex", alpha=1.0))] == [
        "w",
        "m",
    ]
    assert fuse_rankings(words, meaning, Fusion(weights=(1.0, 2.0)))[0][0] == "m"


def test_rrf_k_of_the_fusion_is_used() -> None:
    words = [("a", 3.0), ("b", 2.0)]
    meaning = [("b", 0.9), ("a", 0.1)]
    assert dict(fuse_rankings(words, meaning, Fusion(k=10)))["a"] == pytest.approx(1 / 11 + 1 / 12)


def test_by_coverage_lifts_documents_with_more_of_the_words() -> None:
    scored = [("one word, often", 3.0), ("every word", 2.0), ("unmatched", 1.0)]
    shares = {"one word, often": 0.5, "every word": 1.0}
    assert [k for k, _ in by_coverage(scored, shares, 0.0)] == [k for k, _ in scored]
    assert by_coverage(scored, shares, 3.0) == [
        ("every word", 8.0),
        ("one word, often", 7.5),
        ("unmatched", 1.0),
    ]
