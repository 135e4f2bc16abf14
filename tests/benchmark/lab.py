"""One judged set's index for the ranking bench, opened once: its vectors and query vectors
shared by every searcher a candidate makes, and the candidate's BM25 settings while it runs."""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memidx.config import load_config
from memidx.embed.embedders import Embedder, Vectors
from memidx.index import documents
from memidx.index.store import Store, VectorStore, open_store
from memidx.search import query as query_module
from memidx.search.searcher import Searcher
from memidx.search.vector_index import VectorIndex
from tests.benchmark.candidates import DEFAULT, Candidate
from tests.benchmark.feedback import Feedback
from tests.benchmark.stand_in import StandIn


@dataclass(slots=True)
class QueryVectors(StandIn):
    """The model's query vectors, each embedded once, with the time that took."""

    seen: dict[str, tuple[Vectors, float]] = field(default_factory=dict[str, tuple[Vectors, float]])

    def embed_query(self, text: str) -> Vectors:
        if text not in self.seen:
            start = time.perf_counter()
            vector = self.model.embed_query(text)
            self.seen[text] = (vector, time.perf_counter() - start)
        return self.seen[text][0]


@dataclass(slots=True)
class Lab:
    """One set's index, opened once, its vectors and query vectors shared by every searcher."""

    store: Store
    root: Path
    queries: QueryVectors | None = None
    vectors: VectorIndex | None = None

    def searcher(self, candidate: Candidate = DEFAULT) -> Searcher:
        chunks, weight = candidate.feedback
        embedder: Embedder | None = self.queries
        if chunks and self.queries is not None and self.vectors is not None:
            embedder = Feedback(self.queries, self.vectors, chunks, weight)
        return Searcher(
            self.store,
            load_config(self.root),
            depth=candidate.depth,
            fusion=candidate.fusion,
            bonus=candidate.bonus,
            saturation=candidate.saturation,
            expansion=candidate.expansion,
            rerank=candidate.rerank,
            reranker=candidate.cross.bound(self.store) if candidate.cross else candidate.reranker,
            turns=candidate.turns,
            _embedder=embedder,
            _vectors=self.vectors,
        )


def lab_of(root: Path) -> Lab:
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
    lab = Lab(store, root)
    base = lab.searcher()
    if has_vectors(base):
        lab.queries = QueryVectors(base.embedder())
        lab.vectors = lab.searcher().vectors()
    return lab


def has_vectors(searcher: Searcher) -> bool:
    """Whether every chunk has a vector of the model (else the words alone are compared)."""
    vectors = VectorStore(searcher.store.conn)
    if vectors.model(searcher.config.model) is None:
        return False
    return not vectors.missing(searcher.config.model)


@contextmanager
def lexical_settings(candidate: Candidate) -> Generator[None]:
    """The candidate's BM25 field weights and stopword list while it runs."""
    saved = documents.BM25_WEIGHTS, query_module.STOPWORDS
    if candidate.fields is not None:
        documents.BM25_WEIGHTS = candidate.fields
    if candidate.stopwords is not None:
        query_module.STOPWORDS = candidate.stopwords
    try:
        yield
    finally:
        documents.BM25_WEIGHTS, query_module.STOPWORDS = saved
