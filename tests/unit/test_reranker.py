"""The learned re-ranker: pure features and order, and the searcher's pool of the fused top N."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.store import Filters, Store
from memidx.search.relevance import Evidence
from memidx.search.reranker import (
    FINER,
    NAMES,
    WEIGHTS,
    Learned,
    Pool,
    Signals,
    best_weighted,
    features,
    neutral_cosine,
    pool_of,
    reordered,
)
from memidx.search.searcher import Searcher
from tests.helpers import FakeEmbedder, add_note


@pytest.fixture
def searcher(store: Store, tmp_path: Path) -> Searcher:
    fake = FakeEmbedder()
    add_note(store, "notes/wsl.md", "# WSL memory\nvmmem grows; cap memory in wslconfig.\n")
    add_note(store, "notes/git.md", "# Detached head\ncheckout of a tag detaches head.\n")
    add_note(store, "notes/ram.md", "# Laptop RAM\nvmmem eats ram and memory.\n")
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    return Searcher(store, config, _embedder=fake)


WEAK = Evidence(0.2, 0.0, 5.0, 0.0)
STRONG = Evidence(0.8, 5.0, 5.0, 1.0)


def signals(rank: int, evidence: Evidence, bm25: int | None = None) -> Signals:
    return Signals(rank, bm25, rank, evidence)


def test_features_count_a_missing_rank_as_depth_plus_one() -> None:
    found = features(Signals(3, None, 2, Evidence(0.5, 2.0, 8.0, 0.5, 0.25, 0.75)), 20)
    x = dict(zip(NAMES, found, strict=True))
    assert x == pytest.approx(
        {
            "log bm25 rank": math.log(21),
            "log vector rank": math.log(2),
            "log fused rank": math.log(3),
            "cosine": 0.5,
            "bm25 / best": 0.25,
            "coverage": 0.5,
            "every word": 0.0,
            "second cosine": 0.25,
            "weighted coverage": 0.75,
            "weighted coverage / best": 0.0,  # no pool's best given
        }
    )


def test_the_idf_share_is_read_against_the_pools_best() -> None:
    """A document's share of the query's IDF mass over the best share in its pool; 0 when no
    document of the pool has any of the query's words."""
    share = dict(
        zip(
            NAMES,
            features(signals(1, Evidence(0.5, 2.0, 8.0, 0.5, 0.2, 0.3)), 20, best=0.6),
            strict=True,
        )
    )
    assert share["weighted coverage / best"] == pytest.approx(0.5)
    assert features(signals(1, WEAK), 20, best=0.0)[-1] == 0.0


def test_the_pools_best_idf_share_falls_back_to_coverage() -> None:
    """Without the words' rarity (no learned weight reads it) the coverage stands in."""
    pool = (
        signals(1, Evidence(0.5, 1.0, 2.0, 0.75)),
        signals(2, Evidence(0.4, 2.0, 2.0, 0.5, None, 0.6)),
    )
    assert best_weighted(pool) == 0.75
    assert best_weighted(()) == 0.0


def test_the_order_reads_each_document_against_its_own_pools_best() -> None:
    """Weighted against the raw share, the share over the pool's best puts the document with
    the most of the query's rare words first; read without the pool's best (0 for all) the
    raw share's negative weight would put it last."""
    names = {"weighted coverage": -1.0, "weighted coverage / best": 1.0}
    weights = tuple(names.get(n, 0.0) for n in NAMES)
    most = signals(2, Evidence(0.5, 1.0, 2.0, 0.5, None, 0.5))
    less = signals(1, Evidence(0.5, 1.0, 2.0, 0.5, None, 0.25))
    assert Learned(weights=weights).order(Pool((7, 5), (less, most), 20)) == [5, 7]


def test_evidence_the_search_did_not_ask_for_falls_back() -> None:
    """Without vectors a document's second cosine is 0, as its cosine; without the words'
    rarity its weighted coverage is its coverage."""
    found = features(Signals(1, 1, None, Evidence(None, 2.0, 2.0, 1.0)), 20)
    x = dict(zip(NAMES, found, strict=True))
    assert (x["cosine"], x["second cosine"]) == (0.0, 0.0)
    assert x["weighted coverage"] == x["coverage"] == x["every word"] == 1.0


def test_one_weight_per_feature() -> None:
    assert len(WEIGHTS) == len(NAMES)


def test_equal_scores_keep_the_fused_order() -> None:
    pool = Pool((7, 5, 9), tuple(signals(n, WEAK) for n in (1, 2, 3)), 20)
    assert Learned(weights=(0.0,) * len(NAMES)).order(pool) == [7, 5, 9]


def test_the_order_follows_the_weighted_features() -> None:
    by_cosine = tuple(1.0 if name == "cosine" else 0.0 for name in NAMES)
    pool = Pool((7, 5), (signals(1, WEAK), signals(2, STRONG)), 20)
    assert Learned(weights=by_cosine).order(pool) == [5, 7]


def test_a_document_with_no_vector_yet_is_read_at_the_pools_median_cosine() -> None:
    """A note committed while its background embed runs (or brought by `memidx sync`) has no
    vector: read as cosine 0, the shipped weights put it, first by words and with every word,
    below a note found by meaning only (a new user's `terraform state lock`)."""
    fresh = Signals(2, 1, None, Evidence(None, 5.0, 5.0, 1.0))
    by_meaning = Signals(1, None, 1, Evidence(0.55, 0.0, 5.0, 0.0))
    others = (
        Signals(3, None, 2, Evidence(0.3, 0.0, 5.0, 0.0)),
        Signals(4, None, 3, Evidence(0.25, 0.0, 5.0, 0.0)),
    )
    pool = Pool((8, 7, 5, 9), (by_meaning, fresh, *others), 20)
    assert neutral_cosine(pool) == 0.3
    assert Learned().order(pool)[0] == 7


def test_the_neutral_cosine_is_0_when_no_document_has_a_vector() -> None:
    """Words only (no model): every document reads 0, as before, so no order changes."""
    pool = Pool((7, 5), (signals(1, Evidence(None, 1.0, 5.0, 0.5)), signals(2, WEAK)), 20)
    assert neutral_cosine(Pool((7,), pool.signals[:1], 20)) == 0.0
    assert neutral_cosine(Pool((7, 5, 9), (*pool.signals, signals(3, STRONG)), 20)) == 0.5


def test_reordered_puts_the_pool_first_and_the_rest_in_fused_order() -> None:
    fused = [(1, 0.5), (2, 0.4), (3, 0.3), (4, 0.2)]
    evidence = {1: WEAK, 2: STRONG, 3: WEAK}
    pool = pool_of(
        fused,
        2,
        bm25_rank={2: 1},
        vector_rank={1: 1, 2: 2},
        evidence=evidence,
        depth=20,
    )
    assert pool.docs == (1, 2) and pool.signals[1].bm25_rank == 1
    by_cosine = Learned(2, tuple(1.0 if n == "cosine" else 0.0 for n in NAMES))
    assert reordered(fused, pool, by_cosine) == [(2, 0.4), (1, 0.5), (3, 0.3), (4, 0.2)]


@dataclass(slots=True)
class Backwards:
    """An Order that reverses the pool, keeping what it was given."""

    top: int = 3
    pools: list[Pool] = field(default_factory=list[Pool])

    def order(self, pool: Pool) -> list[int]:
        self.pools.append(pool)
        return list(reversed(pool.docs))


def test_hybrid_search_reorders_its_fused_top_n(searcher: Searcher) -> None:
    plain = [h.ref for h in searcher.search("vmmem memory ram", Filters(), 3).hits]
    searcher.reranker = backwards = Backwards()
    hits = searcher.search("vmmem memory ram", Filters(), 3).hits
    assert [h.ref for h in hits] == list(reversed(plain))
    (pool,) = backwards.pools
    assert pool.depth == 20
    assert [s.fused_rank for s in pool.signals] == [1, 2, 3]
    assert [h.rank for h in hits] == [1, 2, 3]


def test_words_only_search_is_not_reordered(searcher: Searcher) -> None:
    plain = [h.ref for h in searcher.search("memory", Filters(), 3, "bm25").hits]
    searcher.reranker = backwards = Backwards()
    assert [h.ref for h in searcher.search("memory", Filters(), 3, "bm25").hits] == plain
    assert backwards.pools == []


def test_hybrid_search_orders_its_top_by_the_learned_model_by_default(
    store: Store, tmp_path: Path
) -> None:
    """RRF ties two notes (first by words, second by meaning, and the other way round) and
    keeps the words' first; the learned model puts the one closer in meaning first."""
    fake = FakeEmbedder()
    noise = " ".join(f"word{i}" for i in range(30))
    add_note(store, "notes/title.md", f"# Disk quota exceeded\nprinters fonts toner ink {noise}\n")
    add_note(store, "notes/body.md", "# Storage\ndisk quota exceeded\n")
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    fused = Searcher(store, config, reranker=None, _embedder=fake)
    hits = fused.search("disk quota exceeded", Filters(), 5, "hybrid").hits
    assert [(h.ref, h.ranks) for h in hits] == [
        ("notes/title.md", {"bm25": 1, "vector": 2}),
        ("notes/body.md", {"bm25": 2, "vector": 1}),
    ]
    assert hits[0].score == hits[1].score  # an RRF tie
    learned = Searcher(store, config, _embedder=fake).search("disk quota exceeded", Filters(), 5)
    assert [h.ref for h in learned.hits] == ["notes/body.md", "notes/title.md"]
    assert [h.rank for h in learned.hits] == [1, 2]


def idf(having: int, total: int) -> float:
    return math.log((total - having + 0.5) / (having + 0.5) + 1.0)


def test_hybrid_search_weighs_each_word_by_its_rarity(store: Store, tmp_path: Path) -> None:
    """Two notes have two of the three words each; the one whose second word is rarer (one
    note has "beta", two have "gamma") gets the larger weighted coverage."""
    fake = FakeEmbedder()
    rare = add_note(store, "notes/a.md", "# One\nalpha beta\n")
    common = add_note(store, "notes/b.md", "# Two\nalpha gamma\n")
    add_note(store, "notes/c.md", "# Three\nalpha\n")
    add_note(store, "notes/d.md", "# Four\ngamma\n")
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    backwards = Backwards(top=10)
    Searcher(store, config, reranker=backwards, _embedder=fake).search(
        "alpha beta gamma", Filters(), 4
    )
    (pool,) = backwards.pools
    found = dict(zip(pool.docs, (s.evidence for s in pool.signals), strict=True))
    alpha, beta, gamma = idf(3, 4), idf(1, 4), idf(2, 4)
    assert found[rare].coverage == found[common].coverage == pytest.approx(2 / 3)
    assert found[rare].weighted_coverage == pytest.approx((alpha + beta) / (alpha + beta + gamma))
    assert found[common].weighted_coverage == pytest.approx(
        (alpha + gamma) / (alpha + beta + gamma)
    )


def test_hybrid_search_gives_the_pool_its_second_best_chunks(store: Store, tmp_path: Path) -> None:
    fake = FakeEmbedder()
    two = add_note(store, "notes/two.md", "# Swap\nswap file size\n\n## Later\nram limits\n")
    one = add_note(store, "notes/one.md", "# RAM\nram limits\n")
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    backwards = Backwards(top=10)
    Searcher(store, config, reranker=backwards, _embedder=fake).search("ram limits", Filters(), 2)
    (pool,) = backwards.pools
    found = dict(zip(pool.docs, (s.evidence for s in pool.signals), strict=True))
    assert found[one].second_cosine == found[one].cosine  # one chunk: its cosine twice
    first, second = found[two].cosine, found[two].second_cosine
    assert first is not None and second is not None and second < first


def test_a_model_that_weighs_only_the_idf_share_does_not_read_second_chunks(
    searcher: Searcher,
) -> None:
    """The second-best chunks' cosines cost the chunk cosines of the whole pool; a model that
    weighs the words' rarity alone asks for the rarity and not for them."""
    only = tuple(1.0 if n == "weighted coverage / best" else 0.0 for n in NAMES)
    searcher.reranker = Learned(weights=only)
    for hit in searcher.search("vmmem memory ram", Filters(), 3).hits:
        assert hit.evidence is not None and hit.evidence.weighted_coverage is not None
        assert hit.evidence.second_cosine is None


def test_other_modes_do_not_ask_for_the_re_rankers_evidence(searcher: Searcher) -> None:
    for mode in ("vector", "bm25"):
        for hit in searcher.search("vmmem memory ram", Filters(), 3, mode).hits:
            assert hit.evidence is not None
            assert (hit.evidence.second_cosine, hit.evidence.weighted_coverage) == (None, None)


def test_the_shipped_weights_do_not_read_the_finer_evidence(searcher: Searcher) -> None:
    """The second-best chunks and the words' rarity cost queries; the default model gives them
    no weight, so a default search does not ask for them (a model that weighs them does)."""
    assert not Learned().finer
    assert Learned(weights=(0.0,) * FINER + (1.0,) * (len(NAMES) - FINER)).finer
    for hit in searcher.search("vmmem memory ram", Filters(), 3).hits:
        assert hit.evidence is not None and hit.evidence.cosine is not None
        assert (hit.evidence.second_cosine, hit.evidence.weighted_coverage) == (None, None)
