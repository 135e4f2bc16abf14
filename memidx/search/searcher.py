"""Search modes: bm25, vector and hybrid (BM25 and cosine fused by RRF). Read-only: the query
is the only text embedded here, and nothing here touches the network."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from memidx.config import Config
from memidx.embed.embedders import Embedder, query_embedder
from memidx.errors import MemidxError, ModelError, UsageError
from memidx.index.store import Filters, Store, VectorStore, rarity, snapshot
from memidx.remedies import run_hint
from memidx.search.answer import vectors_missing, words_only
from memidx.search.fusion import Fusion, fuse_rankings
from memidx.search.hits import Early, HitBuilder
from memidx.search.lexical import (
    SearchResult,
    lexical_search,
    rank_lexical,
)
from memidx.search.masking import masked
from memidx.search.query import query_terms, quote
from memidx.search.relevance import Evidence
from memidx.search.reranker import Learned, Order
from memidx.search.scoring import by_relevance, hit_evidence, learned
from memidx.search.timing import Stopwatch
from memidx.search.turn_context import in_context
from memidx.search.vector_index import VectorIndex
from memidx.text import counted

if TYPE_CHECKING:  # the bench's BM25: a search never loads it (lexical.resaturated)
    from memidx.search.okapi import Saturation
    from memidx.search.rm3 import Expansion

MODES = ("auto", "hybrid", "bm25", "vector")
DEPTH = 20  # candidates taken from each ranking before fusion (tuned: see the README)
Evidences = dict[int, Evidence]  # what each document's relevance comes from
AHEAD = 4  # queries embedded ahead of their search (embed_ahead) kept at most


@dataclass(slots=True)
class Ahead:
    """A query embedded ahead of its search, and how many requests on their way want it."""

    text: str
    future: Future[NDArray[np.float32]]
    wants: int = 1

    def done(self) -> bool:
        """Whether its embedding is over (made, failed or cancelled): nothing left to stop."""
        return self.future.done()


@dataclass(slots=True)
class Searcher:
    """Search one index; the model and the vectors load lazily, once per process."""

    store: Store
    config: Config
    depth: int = DEPTH
    fusion: Fusion = field(default_factory=Fusion)
    bonus: float = 0.0  # > 0: words rank by OR with a bonus for coverage (lexical.rank_lexical)
    saturation: Saturation | None = None  # BM25's k1 and b, when not FTS5's (lexical.py)
    expansion: Expansion | None = None  # the words' query grown by feedback (expansion.py)
    rerank: int = 0  # re-order this many fused documents by relevance (0: RRF's order)
    reranker: Order | None = field(default_factory=Learned)  # hybrid's fused top N (reranker.py)
    turns: bool = True  # then the turns among them in their sessions' context (context.py)
    coarse: bool = False  # long-lived: build a narrow first pass over many vectors (coarse.py)
    _embedder: Embedder | None = None
    _vectors: VectorIndex | None = None
    _notes: list[str] = field(default_factory=list[str])
    watch: Stopwatch = field(default_factory=Stopwatch)
    _ahead: dict[str, Ahead] = field(default_factory=dict[str, Ahead])
    _ahead_lock: threading.Lock = field(default_factory=threading.Lock)

    def search(self, text: str, filters: Filters, limit: int, mode: str = "auto") -> SearchResult:
        """Search in `mode`; auto is hybrid when vectors of the model exist, else bm25."""
        if mode not in MODES:
            raise UsageError(f"unknown mode {mode!r}", f"choose one of {', '.join(MODES)}")
        self._notes = []
        with snapshot(self.store.conn):
            if mode == "bm25" or not self._vectors_usable(required=mode != "auto"):
                result = lexical_search(
                    self.store, text, filters, limit, self.bonus,
                    saturation=self.saturation, expansion=self.expansion,
                )  # fmt: skip
                return _with_warnings(result, self._notes)
            return self._semantic(text, filters, limit, fuse=mode != "vector")

    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self.watch.phase("model_load"):
                self._embedder = query_embedder(self.config)
        return self._embedder

    def embed_ahead(self, text: str) -> Ahead | None:
        """Start embedding `text` now, from any thread: a search for it is on its way (a
        server saw the request arrive). Only once the model is loaded; at most AHEAD kept (one
        pushed out before it started is cancelled: its search embeds its own). The Ahead
        returned is what forget_ahead takes."""
        embedder = self._embedder
        if embedder is None:
            return None
        with self._ahead_lock:
            found = self._ahead.get(text)
            if found is not None:
                found.wants += 1
                return found
            while len(self._ahead) >= AHEAD:
                self._ahead.pop(next(iter(self._ahead))).future.cancel()
            ahead = Ahead(text, _embedding_thread().submit(embedder.embed_query, text))
            self._ahead[text] = ahead
            return ahead

    def forget_ahead(self, ahead: Ahead) -> None:
        """A request that wanted `ahead` will not search (the client cancelled it, or its
        session ended): its embedding is cancelled, from any thread, unless it has started or
        another request wants it."""
        with self._ahead_lock:
            ahead.wants -= 1
            mine = self._ahead.get(ahead.text) is ahead
            if mine and ahead.wants <= 0 and ahead.future.cancel():
                del self._ahead[ahead.text]

    def settle(self) -> None:
        """Build the narrow first pass now, in the background, if this searcher is to have
        one and the vectors are loaded (else it starts after the first search)."""
        if self.coarse and self._vectors is not None:
            self._vectors.start_coarse(_embedding_thread())

    def drop_vectors(self) -> None:
        """Forget the loaded vectors (the index changed under a long-lived process); the model
        stays loaded."""
        self._vectors = None

    def vectors(self) -> VectorIndex:
        if self._vectors is None:
            embedder = self.embedder()
            with self.watch.phase("vector_load"):
                self._vectors = VectorIndex.load(self.store, self.config.index_path, embedder)
        return self._vectors

    def _embed_hint(self) -> str:
        return run_hint(self.config.root, "embed")  # `make embed` only with memidx's Makefile

    def _vectors_usable(self, *, required: bool) -> bool:
        known = VectorStore(self.store.conn).model(self.config.model)
        try:
            if known is None:
                raise vectors_missing(self.config)
            embedder = self.embedder()
            if known != (embedder.dim, embedder.fingerprint):
                raise MemidxError(
                    f"the vectors were made by another build of {self.config.model}",
                    self._embed_hint(),
                )
        except (ModelError, MemidxError) as exc:
            if required:
                raise
            self._notes.append(words_only(exc))
            return False
        return True

    def _semantic(self, text: str, filters: Filters, limit: int, *, fuse: bool) -> SearchResult:
        terms = query_terms(text)
        vectors = self.vectors()
        if vectors.docs_without:
            self._notes.append(
                f"{counted(vectors.docs_without, 'document')} without vectors yet "
                f"{'is' if vectors.docs_without == 1 else 'are'} found by words only "
                f"({self._embed_hint()})"
            )
        embedder = self.embedder()
        depth = max(self.depth, limit)
        # The query is embedded on another thread while this one (which owns the connection)
        # asks the full-text index: ONNX Runtime and SQLite both let go of the GIL.
        with self._ahead_lock:
            ahead = self._ahead.pop(text, None)
        pending = ahead.future if ahead is not None else None
        if pending is None:
            pending = _embedding_thread().submit(embedder.embed_query, text)
        with self.watch.phase("sql"):
            # also the relevance's evidence
            words = rank_lexical(
                self.store, text, filters, depth, self.bonus,
                saturation=self.saturation, expansion=self.expansion,
            )  # fmt: skip
            lexical = words if fuse else None
            allowed = None if filters == Filters() else self.store.allowed(filters)
            early = Early.fetch(self.store, words, limit) if fuse else Early()
        with self.watch.phase("query_embedding"):  # what is left of it once the words are in
            query = pending.result()
        with self.watch.phase("vector_scan"):
            semantic = vectors.rank(query, depth, allowed)
            chunks = vectors.rank(query, depth, allowed, True) if self.fusion.chunks else semantic
        with self.watch.phase("fusion"):
            by_words = (
                [(row.id, row.score) for row in lexical.rows] if lexical is not None else None
            )
            fused = fuse_rankings(by_words, [(doc, cos) for doc, cos, _ in chunks], self.fusion)
        with self.watch.phase("relevance"):
            how = self.reranker if fuse else None
            shown = [doc for doc, _ in fused[: max(limit, self.rerank, how.top if how else 0)]]
            cosines = {doc: cosine for doc, cosine, _ in semantic}
            # a re-ranker may read second-best chunks and the words' rarity (reranker.py)
            finer = how is not None and (not isinstance(how, Learned) or how.finer)
            dearer = finer and (not isinstance(how, Learned) or how.seconds)
            seconds: dict[int, float] | None = {} if dearer else None
            rarities = rarity(self.store.conn, [quote(t) for t in terms.terms]) if finer else None

            def evidence(docs: list[int], masked: Mapping[int, int] | None = None) -> Evidences:
                _read_cosines(vectors, query, docs, cosines, seconds)
                every_word = words.match == "and"
                return hit_evidence(
                    self.store, terms, words.rows, docs, every_word=every_word,
                    cosines=cosines, masked=masked, seconds=seconds, rarities=rarities,
                )  # fmt: skip

            found = evidence(shown, early.masks)
            fused = by_relevance(fused, found) if self.rerank else fused
            if how is not None:
                fused = learned(fused, how, words.rows, semantic, evidence=found, depth=depth)
        with self.watch.phase("turns"):  # last: the turns' order is the context model's
            if fuse and self.turns:
                fused = in_context(self.store, vectors, query, terms, fused, cosines=cosines)
                late = [doc for doc, _ in fused[:limit] if doc not in found]
                if late:  # turns the context brought up from below the evidence's cut
                    found |= evidence(late)
        with self.watch.phase("hits"):
            hits = HitBuilder(self.store, lexical, semantic, terms.terms, found, early).build(
                fused[:limit]
            )
        if self.coarse:
            vectors.start_coarse(_embedding_thread())
        result = SearchResult(
            text,
            terms,
            "hybrid" if fuse else "vector",
            lexical.match if lexical and lexical.rows else None,  # None: by meaning alone
            tuple(hits),
        )
        return _with_warnings(masked(result), self._notes)


def _read_cosines(
    vectors: VectorIndex,
    query: NDArray[np.float32],
    docs: Sequence[int],
    cosines: dict[int, float],
    seconds: dict[int, float] | None,
) -> None:
    """Add the best chunks' cosines of `docs` that `cosines` lacks (the meaning's list has
    its own) and, unless `seconds` is None, every one's second-best chunk's cosine."""
    ask = docs if seconds is not None else [d for d in docs if d not in cosines]
    for doc, (best, second) in vectors.best_two(query, ask).items():
        cosines.setdefault(doc, best)
        if seconds is not None:
            seconds[doc] = second


@cache
def _embedding_thread() -> ThreadPoolExecutor:
    """One thread per process for query embeddings, made at the first hybrid search."""
    return ThreadPoolExecutor(1, thread_name_prefix="memidx-embed")


def _with_warnings(result: SearchResult, notes: Sequence[str]) -> SearchResult:
    if not notes:
        return result
    return SearchResult(
        result.query,
        result.terms,
        result.engine,
        result.match,
        result.hits,
        (*result.warnings, *notes),
    )
