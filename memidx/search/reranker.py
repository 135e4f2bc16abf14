"""A learned re-ranker over the fused top N of a hybrid search (pure, no numpy).

RRF keeps only ranks; the relevance model (relevance.py) keeps only scores. This linear model
scores each of the fused top N from both, normalised per query: the log rank in each list (a
document missing from one counts as depth + 1 there), its cosine and how far it falls behind
the query's best cosine, its BM25 against the query's best, the share of the query's words it
has (and whether it has them all), and the share of them in its title. The documents are then
ordered by that score (ties keep the fused order); those past N keep their fused order. The
weights were fitted on dev splits only, pairwise (relevant against non-relevant hits of the same
query), by `python -m tests.benchmark.rerank_fit fit`; figures: README, "Ranking candidates".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from memidx.search.query import tokenize
from memidx.search.relevance import Evidence


@dataclass(frozen=True, slots=True)
class Signals:
    """What the search knows about one of the fused top N."""

    fused_rank: int  # from 1
    bm25_rank: int | None  # None: the words did not rank it (within the depth)
    vector_rank: int | None  # None: the meaning did not rank it (within the depth)
    evidence: Evidence
    title_share: float  # share of the query's words in its title, 0..1


@dataclass(frozen=True, slots=True)
class Pool:
    """The fused top N of one query, with what the query knows about all of them."""

    docs: tuple[int, ...]  # fused order
    signals: tuple[Signals, ...]
    depth: int  # how deep each list was taken
    best_cosine: float | None  # the query's best cosine over every document (None: no vectors)


class Order(Protocol):
    """A re-ordering of the fused top `top` documents."""

    @property
    def top(self) -> int: ...

    def order(self, pool: Pool) -> list[int]:
        """The pool's documents, best first."""
        ...


# bias-free linear weights over features(); fitted by `python -m tests.benchmark.rerank_fit
# fit` on dev splits (see the module docstring).
NAMES = (
    "log bm25 rank",
    "log vector rank",
    "log fused rank",
    "cosine",
    "cosine - best",
    "bm25 / best",
    "coverage",
    "every word",
    "title share",
)
WEIGHTS = (0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
TOP = 30


def features(signals: Signals, depth: int, best_cosine: float | None) -> tuple[float, ...]:
    """The model's inputs for one document, in NAMES' order."""
    e = signals.evidence
    missing = depth + 1
    cosine = e.cosine if e.cosine is not None else 0.0
    best = best_cosine if best_cosine is not None else cosine
    share = e.bm25 / e.top_bm25 if e.top_bm25 > 0 else 0.0
    return (
        math.log(signals.bm25_rank or missing),
        math.log(signals.vector_rank or missing),
        math.log(signals.fused_rank),
        cosine,
        cosine - best,
        share,
        e.coverage,
        1.0 if e.coverage >= 1.0 else 0.0,
        signals.title_share,
    )


@dataclass(frozen=True, slots=True)
class Learned:
    """The linear model: documents by their weighted features, ties in the fused order."""

    top: int = TOP
    weights: tuple[float, ...] = WEIGHTS

    def order(self, pool: Pool) -> list[int]:
        scores = [
            sum(
                w * x
                for w, x in zip(
                    self.weights, features(s, pool.depth, pool.best_cosine), strict=True
                )
            )
            for s in pool.signals
        ]
        chosen = sorted(range(len(pool.docs)), key=lambda i: (-scores[i], i))
        return [pool.docs[i] for i in chosen]


def title_share(title: str, terms: Sequence[str]) -> float:
    """The share of the query's terms that are words of the title (lower-cased, exact)."""
    if not terms:
        return 0.0
    words = set(tokenize(title))
    return sum(t in words for t in terms) / len(terms)


def pool_of(
    fused: Sequence[tuple[int, float]],
    top: int,
    *,
    bm25_rank: Mapping[int, int],
    vector_rank: Mapping[int, int],
    evidence: Mapping[int, Evidence],
    titles: Mapping[int, str],
    terms: Sequence[str],
    depth: int,
    best_cosine: float | None,
) -> Pool:
    """The fused top `top` that have evidence, as a Pool."""
    docs = tuple(doc for doc, _ in fused[:top] if doc in evidence)
    signals = tuple(
        Signals(
            n,
            bm25_rank.get(doc),
            vector_rank.get(doc),
            evidence[doc],
            title_share(titles.get(doc, ""), terms),
        )
        for n, doc in enumerate(docs, start=1)
    )
    return Pool(docs, signals, depth, best_cosine)


def reordered(
    fused: Sequence[tuple[int, float]], pool: Pool, how: Order
) -> list[tuple[int, float]]:
    """The fused list with the pool's documents in `how`'s order first, the rest after."""
    score = dict(fused)
    head = [(doc, score[doc]) for doc in how.order(pool)]
    inside = set(pool.docs)
    return head + [pair for pair in fused if pair[0] not in inside]
