"""A learned re-ranker over the fused top N of a hybrid search (pure, no numpy).

RRF keeps only ranks; the relevance model (relevance.py) keeps only scores. This linear model
scores each of the fused top N from both: its log rank in the words' list, the meaning's list
(a document missing from one counts as depth + 1 there) and the fused one, the cosine of its
best chunk, its BM25 against the query's best, the share of the query's words it has and
whether it has them all (and three features the shipped weights leave at 0: the cosine of its
second-best chunk, the share of the query's words it has with each word weighing its IDF, and
that share over the pool's best share). The documents are ordered by that score, ties in the
fused order;
those past N keep their fused order. The weights were fitted on dev splits only, pairwise
(relevant against non-relevant documents of the same query's pool), by `python -m
tests.benchmark.rerank_fit fit`; figures: README, "Ranking candidates". A pairwise fit cannot
use a feature that differs from another by a constant per query (the cosine minus the query's
best cosine would share the cosine's weight), nor a query-level one; the share of the query's
words in the title got a weight near 0 once NFCorpus was in the fit, and was dropped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from memidx.search.relevance import Evidence


@dataclass(frozen=True, slots=True)
class Signals:
    """What the search knows about one of the fused top N."""

    fused_rank: int  # from 1
    bm25_rank: int | None  # None: the words did not rank it (within the depth)
    vector_rank: int | None  # None: the meaning did not rank it (within the depth)
    evidence: Evidence


@dataclass(frozen=True, slots=True)
class Pool:
    """The fused top N of one query, with what the query knows about all of them."""

    docs: tuple[int, ...]  # fused order
    signals: tuple[Signals, ...]
    depth: int  # how deep each list was taken


class Order(Protocol):
    """A re-ordering of the fused top `top` documents."""

    @property
    def top(self) -> int: ...

    def order(self, pool: Pool) -> list[int]:
        """The pool's documents, best first."""
        ...


# Linear weights over features() (no bias: only differences within a query count). Fitted by
# `python -m tests.benchmark.rerank_fit fit` (top 30, L2 1e-3 on standardised features) on the
# dev splits of golden, TIL, NFCorpus and LoCoMo (1,236 queries, 50,017 pairs, each set the same
# mass); on those pools MRR@10 went 0.815 -> 0.869 (TIL), 0.544 -> 0.557 (NFCorpus), 0.477 ->
# 0.527 (LoCoMo), golden stayed 1.000. The last three features weigh 0: fitted with the first two
# (the bench candidate `rerank 9 features`), the model won NFCorpus' test split but lost TIL's
# MRR@10; with the third, `rerank idf share` (README, "Ranking candidates"). The searcher does
# not read what only they need.
NAMES = (
    "log bm25 rank",
    "log vector rank",
    "log fused rank",
    "cosine",
    "bm25 / best",
    "coverage",
    "every word",
    "second cosine",
    "weighted coverage",
    "weighted coverage / best",
)
FINER = 7  # the features from here on need more than the fused lists (Learned.finer)
WEIGHTS = (-0.406, -0.120, -0.090, 9.295, 0.345, 2.720, -0.879, 0.0, 0.0, 0.0)
TOP = 30


def features(
    signals: Signals, depth: int, absent: float = 0.0, best: float = 0.0
) -> tuple[float, ...]:
    """The model's inputs for one document, in NAMES' order; `absent`: the cosine of a
    document that has no vector of the model (yet); `best`: the pool's best weighted
    coverage (best_weighted)."""
    e = signals.evidence
    missing = depth + 1
    cosine = e.cosine if e.cosine is not None else absent
    share = e.bm25 / e.top_bm25 if e.top_bm25 > 0 else 0.0
    second = e.second_cosine if e.second_cosine is not None else 0.0
    weighted = weighted_coverage(e)
    return (
        math.log(signals.bm25_rank or missing),
        math.log(signals.vector_rank or missing),
        math.log(signals.fused_rank),
        cosine,
        share,
        e.coverage,
        1.0 if e.coverage >= 1.0 else 0.0,
        second,
        weighted,
        weighted / best if best > 0 else 0.0,
    )


def weighted_coverage(e: Evidence) -> float:
    """The share of the query's IDF mass a document has (its coverage when the search did not
    read the words' rarity)."""
    return e.weighted_coverage if e.weighted_coverage is not None else e.coverage


def best_weighted(signals: Sequence[Signals]) -> float:
    """The pool's best weighted coverage: a query of rare and common words rates a document by
    how close it comes to the best of its pool, which a linear model over the share alone
    cannot (the fit learns no per-query scale)."""
    return max((weighted_coverage(s.evidence) for s in signals), default=0.0)


@dataclass(frozen=True, slots=True)
class Learned:
    """The linear model: documents by their weighted features, ties in the fused order."""

    top: int = TOP
    weights: tuple[float, ...] = WEIGHTS

    @property
    def finer(self) -> bool:
        """Whether the weights read the second-best chunks' cosines or the words' rarity
        (the searcher asks the index for them only then)."""
        return any(self.weights[FINER:])

    @property
    def seconds(self) -> bool:
        """Whether the weights read the second-best chunks' cosines (the whole pool's chunk
        cosines: the dearer half of the finer evidence)."""
        return bool(self.weights[FINER])

    def order(self, pool: Pool) -> list[int]:
        absent, best = neutral_cosine(pool), best_weighted(pool.signals)
        scores = [
            sum(
                w * x
                for w, x in zip(self.weights, features(s, pool.depth, absent, best), strict=True)
            )
            for s in pool.signals
        ]
        chosen = sorted(range(len(pool.docs)), key=lambda i: (-scores[i], i))
        return [pool.docs[i] for i in chosen]


def neutral_cosine(pool: Pool) -> float:
    """The median cosine of the pool's documents that have one (0 when none has): what the
    model reads for a document with no vector yet (a note committed while its background
    embed runs, or brought by `memidx sync`, which embeds nothing). Read as 0, the cosine's
    weight put such a note, every word matched and first by words, below notes found by
    meaning only (`terraform state lock`: a note of relevance 0.00 first, the right one,
    0.71, second); every document's vector missing changes no order."""
    cosines = sorted(s.evidence.cosine for s in pool.signals if s.evidence.cosine is not None)
    if not cosines:
        return 0.0
    middle = len(cosines) // 2
    return cosines[middle] if len(cosines) % 2 else (cosines[middle - 1] + cosines[middle]) / 2


def pool_of(
    fused: Sequence[tuple[int, float]],
    top: int,
    *,
    bm25_rank: Mapping[int, int],
    vector_rank: Mapping[int, int],
    evidence: Mapping[int, Evidence],
    depth: int,
) -> Pool:
    """The fused top `top` that have evidence, as a Pool."""
    docs = tuple(doc for doc, _ in fused[:top] if doc in evidence)
    signals = tuple(
        Signals(n, bm25_rank.get(doc), vector_rank.get(doc), evidence[doc])
        for n, doc in enumerate(docs, start=1)
    )
    return Pool(docs, signals, depth)


def reordered(
    fused: Sequence[tuple[int, float]], pool: Pool, how: Order
) -> list[tuple[int, float]]:
    """The fused list with the pool's documents in `how`'s order first, the rest after."""
    score = dict(fused)
    head = [(doc, score[doc]) for doc in how.order(pool)]
    inside = set(pool.docs)
    return head + [pair for pair in fused if pair[0] not in inside]
