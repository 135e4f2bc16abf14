"""The per-hit relevance: a pure logistic model, and the evidence search gives it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.store import Filters, Store
from memidx.search.lexical import lexical_search
from memidx.search.relevance import Evidence, features, logistic, relevance
from memidx.search.scoring import by_relevance
from memidx.search.searcher import Searcher
from tests.helpers import FakeEmbedder, add_note


@pytest.fixture
def searcher(store: Store, tmp_path: Path) -> Searcher:
    fake = FakeEmbedder()
    add_note(store, "notes/wsl.md", "# WSL memory\nvmmem grows; cap memory in wslconfig.\n")
    add_note(store, "notes/git.md", "# Detached head\ncheckout of a tag detaches head.\n")
    add_note(store, "notes/ram.md", "# Laptop RAM\nvmmem eats ram.\n")
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    return Searcher(store, config, _embedder=fake)


@pytest.mark.parametrize(
    ("z", "p"), [(0.0, 0.5), (2.0, 1 / (1 + math.exp(-2))), (-2.0, 1 / (1 + math.exp(2)))]
)
def test_logistic_values(z: float, p: float) -> None:
    assert logistic(z) == pytest.approx(p)


@pytest.mark.parametrize("z", [-1e6, -800.0, 800.0, 1e6])
def test_logistic_never_overflows(z: float) -> None:
    assert 0.0 <= logistic(z) <= 1.0


def test_features_of_a_hit_with_a_cosine_put_the_cosine_first() -> None:
    assert features(Evidence(0.5, 4.0, 8.0, 0.75)) == pytest.approx(
        (0.5, 0.5, math.log1p(4.0), 0.75)
    )


def test_features_without_words_or_vectors_are_zero() -> None:
    assert features(Evidence(None, 0.0, 0.0, 0.0)) == (0.0, 0.0, 0.0)


def test_relevance_uses_the_model_that_fits_the_evidence() -> None:
    with_vectors, words_only = (0.0, 1.0, 0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)
    assert relevance(Evidence(2.0, 0.0, 0.0, 0.0), with_vectors, words_only) == pytest.approx(
        logistic(2.0)
    )
    assert relevance(Evidence(None, 0.0, 0.0, 0.0), with_vectors, words_only) == pytest.approx(
        logistic(1.0)
    )


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        (Evidence(0.8, 5.0, 5.0, 1.0), Evidence(0.2, 5.0, 5.0, 1.0)),  # closer in meaning
        (Evidence(0.5, 5.0, 5.0, 1.0), Evidence(0.5, 1.0, 5.0, 1.0)),  # better BM25
        (Evidence(0.5, 5.0, 5.0, 1.0), Evidence(0.5, 5.0, 5.0, 0.5)),  # more of the words
        (Evidence(None, 5.0, 5.0, 1.0), Evidence(None, 5.0, 5.0, 0.5)),
        (Evidence(None, 5.0, 5.0, 1.0), Evidence(None, 0.0, 5.0, 0.0)),
    ],
)
def test_shipped_models_rise_with_every_piece_of_evidence(
    better: Evidence, worse: Evidence
) -> None:
    assert 0.0 < relevance(worse) < relevance(better) < 1.0


def test_word_hits_carry_relevance_and_share_of_words(store: Store) -> None:
    add_note(store, "notes/a.md", "# Disk full\nthe disk is full of logs\n")
    add_note(store, "notes/b.md", "# Logs\nrotate logs daily\n")
    result = lexical_search(store, "disk logs rotate", Filters(), 5)
    assert result.match == "or"
    coverage = {h.ref: h.evidence.coverage for h in result.hits if h.evidence}
    assert coverage == {"notes/a.md": pytest.approx(2 / 3), "notes/b.md": pytest.approx(2 / 3)}
    assert all(h.relevance is not None and 0 < h.relevance < 1 for h in result.hits)


def test_every_word_matched_is_full_coverage(store: Store) -> None:
    add_note(store, "notes/a.md", "# Disk full\nthe disk is full of logs\n")
    result = lexical_search(store, "disk logs", Filters(), 5)
    assert [h.evidence.coverage for h in result.hits if h.evidence] == [1.0]


def test_hybrid_hits_have_a_cosine_even_when_only_the_words_found_them(
    searcher: Searcher,
) -> None:
    result = searcher.search("vmmem", Filters(), 3)
    assert result.engine == "hybrid"
    for hit in result.hits:
        assert hit.evidence is not None and hit.evidence.cosine is not None
        assert hit.relevance == pytest.approx(relevance(hit.evidence))
    by_words = [h.evidence for h in result.hits if h.match == "and" and h.evidence]
    assert len(by_words) == 2 and all(e.coverage == 1.0 for e in by_words)
    assert max(e.bm25 for e in by_words) == by_words[0].top_bm25
    assert [h.evidence.coverage for h in result.hits if h.match == "meaning" and h.evidence] == [0]


def test_vector_mode_judges_hits_by_their_words_too(searcher: Searcher) -> None:
    hybrid = {h.ref: h.relevance for h in searcher.search("vmmem", Filters(), 3, "hybrid").hits}
    vector = {h.ref: h.relevance for h in searcher.search("vmmem", Filters(), 3, "vector").hits}
    assert vector == pytest.approx({ref: hybrid[ref] for ref in vector})


def test_by_relevance_orders_the_judged_and_keeps_the_rest_behind() -> None:
    fused = [(1, 0.3), (2, 0.2), (3, 0.1), (4, 0.05)]
    weak, strong = Evidence(0.1, 0.0, 5.0, 0.0), Evidence(0.9, 5.0, 5.0, 1.0)
    assert [d for d, _ in by_relevance(fused, {1: weak, 2: strong, 3: weak})] == [2, 1, 3, 4]


def test_rerank_reorders_hybrid_hits_by_relevance(searcher: Searcher) -> None:
    searcher.rerank = 10
    hits = searcher.search("vmmem ram", Filters(), 3).hits
    values = [h.relevance for h in hits if h.relevance is not None]
    assert len(values) == len(hits) and values == sorted(values, reverse=True)
