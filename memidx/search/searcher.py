"""Search modes: bm25, vector and hybrid (BM25 and cosine fused by RRF). Read-only: the query
is the only text embedded here, and nothing here touches the network."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memidx.config import Config
from memidx.embed.embedders import Embedder, query_embedder
from memidx.embed.matrix import current_stamp, map_matrix, matrix_path, read_matrix
from memidx.errors import MemidxError, ModelError, UsageError
from memidx.index.store import Filters, Store, VectorStore, snapshot
from memidx.search.coarse import CANDIDATES, Coarse, worth_it
from memidx.search.fusion import Fusion, best_chunks, fuse_rankings, top_chunks
from memidx.search.hits import Early, HitBuilder
from memidx.search.lexical import (
    SearchResult,
    lexical_search,
    rank_lexical,
    term_warnings,
)
from memidx.search.masking import masked
from memidx.search.query import query_terms
from memidx.search.reranker import Learned, Order
from memidx.search.scoring import by_relevance, hit_evidence, learned
from memidx.search.timing import Stopwatch
from memidx.search.turn_context import in_context

MODES = ("auto", "hybrid", "bm25", "vector")
DEPTH = 20  # candidates taken from each ranking before fusion (tuned: see the README)
EMBED_HINT = "run `make embed`"
AHEAD = 4  # queries embedded ahead of their search (embed_ahead) kept at most


@dataclass(slots=True)
class VectorIndex:
    """Every chunk vector of one model, loaded once per process."""

    matrix: NDArray[np.float32]
    chunk_ids: NDArray[np.int64]
    doc_ids: NDArray[np.int64]
    docs_without: int
    coarse: Coarse | None = None  # a narrow first pass, once built (coarse.py)
    pool: Executor | None = None  # a thread that may scan half of the narrow pass

    @classmethod
    def load(cls, store: Store, index_path: Path, embedder: Embedder) -> VectorIndex:
        """From the matrix file when it is current, else from SQLite."""
        stamp = current_stamp(store.conn, embedder.name, embedder.fingerprint)
        loaded = map_matrix(matrix_path(index_path, embedder.name), stamp)
        if loaded is None:
            loaded, _ = read_matrix(store.conn, embedder.name, embedder.dim)
        return cls(loaded.vectors, loaded.chunk_ids, loaded.doc_ids, loaded.docs_without)

    def rank(
        self, query: NDArray[np.float32], depth: int, allowed: set[int] | None, chunks: bool = False
    ) -> list[tuple[int, float, int]]:
        """(doc id, cosine of its best chunk, chunk id), best first; with `chunks`, every top
        chunk of the `depth` best documents (top_chunks)."""
        coarse = self.coarse
        if coarse is not None and allowed is None and not chunks:
            found = self._rank_coarse(coarse, query, depth)
            if found is not None:
                return found
        matrix, doc_ids, chunk_ids = self.matrix, self.doc_ids, self.chunk_ids
        if allowed is not None:
            wanted = np.fromiter(allowed, dtype=np.int64, count=len(allowed))
            keep = np.isin(doc_ids, wanted)
            matrix, doc_ids, chunk_ids = matrix[keep], doc_ids[keep], chunk_ids[keep]
        ranked = (top_chunks if chunks else best_chunks)(matrix @ query, doc_ids, depth)
        return [(doc, score, int(chunk_ids[pos])) for doc, score, pos in ranked]

    def _rank_coarse(
        self, coarse: Coarse, query: NDArray[np.float32], depth: int
    ) -> list[tuple[int, float, int]] | None:
        """rank() through the narrow first pass: the best candidates scored exactly, taken in
        the matrix's order (the same query ranks the same way every time); None when they hold
        too few documents."""
        positions = np.sort(coarse.candidates(query, max(CANDIDATES, depth * 25), self.pool))
        ranked = best_chunks(self.matrix[positions] @ query, self.doc_ids[positions], depth)
        if len(ranked) < depth:
            return None
        return [(doc, score, int(self.chunk_ids[positions[pos]])) for doc, score, pos in ranked]

    def start_coarse(self, pool: Executor) -> None:
        """Build the narrow first pass on a background thread, once, when there are enough
        vectors (a fraction of a second of CPU at 40k chunks: for long-lived processes,
        after their first search, so that neither a server's start nor that search waits;
        searches scan in full until it is there)."""
        if self.pool is not None or not worth_it(len(self.chunk_ids)):
            return
        self.pool = pool  # idle once the query is embedded: it scans half the rows
        threading.Thread(target=self.build_coarse, name="memidx-coarse", daemon=True).start()

    def build_coarse(self) -> None:
        """Build the narrow first pass now (start_coarse does it on a thread)."""
        try:
            self.coarse = Coarse.build(self.matrix, doc_ids=self.doc_ids)
        except (MemoryError, ValueError, np.linalg.LinAlgError):
            self.coarse = None  # the full scan goes on: slower, never wrong

    def cosines(self, query: NDArray[np.float32], docs: Sequence[int]) -> dict[int, float]:
        """The cosine of each document's best chunk; documents without vectors are absent."""
        if not docs:
            return {}
        wanted = np.asarray(docs, dtype=np.int64)
        rows = self.coarse.rows_of(wanted) if self.coarse is not None else None
        keep = np.isin(self.doc_ids, wanted) if rows is None else rows
        best: dict[int, float] = {}
        for doc, cosine in zip(
            self.doc_ids[keep].tolist(), (self.matrix[keep] @ query).tolist(), strict=True
        ):
            if cosine > best.get(doc, -2.0):
                best[doc] = cosine
        return best


@dataclass(slots=True)
class Searcher:
    """Search one index; the model and the vectors load lazily, once per process."""

    store: Store
    config: Config
    depth: int = DEPTH
    fusion: Fusion = field(default_factory=Fusion)
    bonus: float = 0.0  # > 0: words rank by OR with a bonus for coverage (lexical.rank_lexical)
    rerank: int = 0  # re-order this many fused documents by relevance (0: RRF's order)
    reranker: Order | None = field(default_factory=Learned)  # hybrid's fused top N (reranker.py)
    turns: bool = True  # then the turns among them in their sessions' context (context.py)
    coarse: bool = False  # long-lived: build a narrow first pass over many vectors (coarse.py)
    _embedder: Embedder | None = None
    _vectors: VectorIndex | None = None
    _notes: list[str] = field(default_factory=list[str])
    watch: Stopwatch = field(default_factory=Stopwatch)
    _ahead: dict[str, Future[NDArray[np.float32]]] = field(
        default_factory=dict[str, "Future[NDArray[np.float32]]"]
    )
    _ahead_lock: threading.Lock = field(default_factory=threading.Lock)

    def search(self, text: str, filters: Filters, limit: int, mode: str = "auto") -> SearchResult:
        """Search in `mode`; auto is hybrid when vectors of the model exist, else bm25."""
        if mode not in MODES:
            raise UsageError(f"unknown mode {mode!r}", f"choose one of {', '.join(MODES)}")
        self._notes = []
        with snapshot(self.store.conn):
            if mode == "bm25" or not self._vectors_usable(required=mode != "auto"):
                result = lexical_search(self.store, text, filters, limit, self.bonus)
                return _with_warnings(result, self._notes)
            return self._semantic(text, filters, limit, fuse=mode != "vector")

    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self.watch.phase("model_load"):
                self._embedder = query_embedder(self.config)
        return self._embedder

    def embed_ahead(self, text: str) -> None:
        """Start embedding `text` now, from any thread: a search for it is on its way (a
        server saw the request arrive). Only once the model is loaded; at most AHEAD kept."""
        embedder = self._embedder
        if embedder is None:
            return
        with self._ahead_lock:
            if text in self._ahead:
                return
            while len(self._ahead) >= AHEAD:
                self._ahead.pop(next(iter(self._ahead)))
            self._ahead[text] = _embedding_thread().submit(embedder.embed_query, text)

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

    def _vectors_usable(self, *, required: bool) -> bool:
        known = VectorStore(self.store.conn).model(self.config.model)
        try:
            if known is None:
                raise MemidxError(f"no vectors of {self.config.model} in the index", EMBED_HINT)
            embedder = self.embedder()
            if known != (embedder.dim, embedder.fingerprint):
                raise MemidxError(
                    f"the vectors were made by another build of {self.config.model}", EMBED_HINT
                )
        except (ModelError, MemidxError) as exc:
            if required:
                raise
            self._notes.append(f"{exc.message}: searching by words only ({exc.hint})")
            return False
        return True

    def _semantic(self, text: str, filters: Filters, limit: int, *, fuse: bool) -> SearchResult:
        terms = query_terms(text)
        vectors = self.vectors()
        if vectors.docs_without:
            self._notes.append(
                f"{vectors.docs_without} documents have no vectors yet; they are found by words "
                f"only ({EMBED_HINT})"
            )
        embedder = self.embedder()
        depth = max(self.depth, limit)
        # The query is embedded on another thread while this one (which owns the connection)
        # asks the full-text index: ONNX Runtime and SQLite both let go of the GIL.
        with self._ahead_lock:
            pending = self._ahead.pop(text, None)
        if pending is None:
            pending = _embedding_thread().submit(embedder.embed_query, text)
        with self.watch.phase("sql"):
            # also the relevance's evidence
            words = rank_lexical(self.store, text, filters, depth, self.bonus)
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
            cosines.update(vectors.cosines(query, [d for d in shown if d not in cosines]))
            found = hit_evidence(
                self.store,
                terms,
                words.rows,
                shown,
                every_word=words.match == "and",
                cosines=cosines,
                counted=early.counts,
            )
            fused = by_relevance(fused, found) if self.rerank else fused
            if how is not None:
                fused = learned(fused, how, words.rows, semantic, evidence=found, depth=depth)
        with self.watch.phase("turns"):  # last: the turns' order is the context model's
            if fuse and self.turns:
                fused = in_context(self.store, vectors, query, terms, fused, cosines=cosines)
                late = [doc for doc, _ in fused[:limit] if doc not in found]
                if late:  # turns the context brought up from below the evidence's cut
                    cosines.update(vectors.cosines(query, late))
                    found |= hit_evidence(
                        self.store,
                        terms,
                        words.rows,
                        late,
                        every_word=words.match == "and",
                        cosines=cosines,
                    )
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
            term_warnings(terms),
        )
        return _with_warnings(masked(result), self._notes)


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
