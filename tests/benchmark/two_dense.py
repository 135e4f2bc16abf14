"""Two embedding models in one hybrid ranking (issue 17, bench only): BM25, all-MiniLM-L6-v2's
meaning list and bge-small-en-v1.5's (bge_small.py) fused by RRF, then re-ordered.

MiniLM alone wins TIL and bge alone (refitted) wins NFCorpus and LoCoMo; fusing both dense
lists is the classic way to get the union of their strengths. `TwoDense.search` is memidx's
hybrid search (searcher.Searcher._semantic) with a third list in RRF, the learned re-ranker
over the fused top 30 and the turn-context model after it, both on MiniLM's cosines as memidx
ships them. Its re-ranker reads, beside the shipped model's seven features (reranker.NAMES),
two of bge's: the cosine of a document's best bge chunk and the log of its rank in bge's list.
`RRF_FORM` weighs those two 0 (the shipped weights: plain three-list RRF under memidx's
models); `LEARNED_FORM` was fitted on the dev splits only (two_bench.py `fit`). The bge
vectors live in the workspace's candidate copy of its index (embedder_candidates.py), whose
document ids are the workspace's own (a backup of it); `same_documents` checks that.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memidx.index.store import Filters, Store
from memidx.search.fusion import rrf
from memidx.search.hits import Early, HitBuilder
from memidx.search.lexical import Hit, rank_lexical
from memidx.search.query import query_terms
from memidx.search.relevance import Evidence
from memidx.search.reranker import FINER, TOP, WEIGHTS, Pool, features, pool_of, reordered
from memidx.search.scoring import hit_evidence
from memidx.search.searcher import DEPTH
from memidx.search.turn_context import in_context
from memidx.search.vector_index import VectorIndex

Vector = NDArray[np.float32]
Evidences = dict[int, Evidence]
EXTRA = ("bge cosine", "log bge rank")  # after the shipped model's FINER features
WIDTH = FINER + len(EXTRA)
RRF_FORM: tuple[float, ...] = (*WEIGHTS[:FINER], 0.0, 0.0)  # memidx's own weights
# Fitted 2026-12-05 by `python -m tests.benchmark.two_bench fit` on the dev pools of golden,
# TIL, NFCorpus and LoCoMo (1,236 queries, 56,892 pairs; top 30 of the three-list RRF, L2 1e-3
# as memidx's own), README "Ranking candidates".
LEARNED_FORM = (-0.426, -0.062, 0.130, 6.224, 0.332, 2.321, -0.763, 10.649, -0.178)
FUSED_ORDER = (0.0,) * WIDTH  # every score ties: the three-list RRF's own order


class NotSameIndex(Exception):
    """The candidate copy's documents are not the workspace's (rebuilt since it was copied)."""


def same_documents(workspace: Path, copy: Path) -> None:
    """Refuse a candidate copy whose document ids do not name the workspace's documents."""

    def documents(path: Path) -> list[tuple[object, ...]]:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            sql = "SELECT id, source_kind, source_ref FROM documents ORDER BY id"
            return conn.execute(sql).fetchall()

    if documents(workspace) != documents(copy):
        raise NotSameIndex(f"{copy} holds other documents than {workspace}: copy it again")


@dataclass(frozen=True, slots=True)
class Recorded:
    """One query's re-ranked pool: document ids in fused order and their WIDTH features."""

    docs: tuple[int, ...]
    x: tuple[tuple[float, ...], ...]


@dataclass(slots=True)
class TwoDense:
    """Hybrid search over the workspace's store with both models' vectors; queries arrive
    embedded (each model's vector), so a row's cost is the search alone."""

    store: Store
    mini: VectorIndex
    bge: VectorIndex
    weights: tuple[float, ...] = RRF_FORM
    depth: int = DEPTH
    top: int = TOP
    turns: bool = True
    pools: list[Recorded] | None = None  # keep each query's pool here (fitting)

    def search(
        self, text: str, filters: Filters, limit: int, query: Vector, bge_query: Vector
    ) -> list[Hit]:
        terms = query_terms(text)
        depth = max(self.depth, limit)
        words = rank_lexical(self.store, text, filters, depth, 0.0)
        allowed = None if filters == Filters() else self.store.allowed(filters)
        early = Early.fetch(self.store, words, limit)
        semantic = self.mini.rank(query, depth, allowed)
        second = self.bge.rank(bge_query, depth, allowed)
        lists = [[r.id for r in words.rows], [d for d, _, _ in semantic], [d for d, _, _ in second]]
        fused = rrf(lists)
        cosines = {doc: cosine for doc, cosine, _ in semantic}

        def evidence(docs: list[int], masks: Mapping[int, int] | None = None) -> Evidences:
            ask = [d for d in docs if d not in cosines]
            for doc, (best, _) in self.mini.best_two(query, ask).items():
                cosines.setdefault(doc, best)
            every_word = words.match == "and"
            return hit_evidence(
                self.store, terms, words.rows, docs, every_word=every_word, cosines=cosines,
                masked=masks,
            )  # fmt: skip

        shown = [doc for doc, _ in fused[: max(limit, self.top)]]
        found = evidence(shown, early.masks)
        pool = pool_of(
            fused,
            self.top,
            bm25_rank={r.id: n for n, r in enumerate(words.rows, 1)},
            vector_rank={doc: n for n, (doc, _, _) in enumerate(semantic, 1)},
            evidence=found,
            depth=depth,
        )
        fused = reordered(fused, pool, self._order(pool, bge_query, second))
        if self.turns:  # last, as in memidx: the turns' order is the context model's
            fused = in_context(self.store, self.mini, query, terms, fused, cosines=cosines)
            late = [doc for doc, _ in fused[:limit] if doc not in found]
            if late:
                found |= evidence(late)
        return HitBuilder(self.store, words, semantic, terms.terms, found, early).build(
            fused[:limit]
        )

    def _order(
        self, pool: Pool, bge_query: Vector, second: Sequence[tuple[int, float, int]]
    ) -> Ordered:
        bge_rank = {doc: n for n, (doc, _, _) in enumerate(second, 1)}
        bge_cosine = {doc: cosine for doc, cosine, _ in second}
        ask = [d for d in pool.docs if d not in bge_cosine]
        bge_cosine |= {doc: best for doc, (best, _) in self.bge.best_two(bge_query, ask).items()}
        x = tuple(
            two_features(s_features, bge_cosine.get(doc, 0.0), bge_rank.get(doc), pool.depth)
            for doc, s_features in zip(
                pool.docs, (features(s, pool.depth) for s in pool.signals), strict=True
            )
        )
        if self.pools is not None:
            self.pools.append(Recorded(pool.docs, x))
        return Ordered(self.top, scored(pool.docs, x, self.weights))


def two_features(
    shipped: Sequence[float], bge_cosine: float, bge_rank: int | None, depth: int
) -> tuple[float, ...]:
    """The shipped model's first FINER features, then bge's cosine and log rank (missing:
    depth + 1, as the other lists')."""
    return (*shipped[:FINER], bge_cosine, math.log(bge_rank or depth + 1))


def scored(
    docs: Sequence[int], x: Sequence[Sequence[float]], weights: Sequence[float]
) -> list[int]:
    """The documents by their weighted features, ties in the fused order."""
    scores = [sum(w * v for w, v in zip(weights, row, strict=True)) for row in x]
    return [docs[i] for i in sorted(range(len(docs)), key=lambda i: (-scores[i], i))]


@dataclass(frozen=True, slots=True)
class Ordered:
    """An Order (reranker.Order) that was decided already."""

    top: int
    docs: list[int]

    def order(self, pool: Pool) -> list[int]:
        return self.docs
