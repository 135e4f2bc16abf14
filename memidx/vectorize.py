"""Embed the chunks that have no vector of the active model (`memidx embed`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from memidx.embed import Embedder, batches, encode_vector
from memidx.store import Store, VectorStore, transaction

BATCH = 64


@dataclass(frozen=True, slots=True)
class EmbedReport:
    """What one `memidx embed` did."""

    model: str
    embedded: int
    chunks: int
    seconds: float
    dropped: bool

    @property
    def rate(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0


def embed_missing(
    store: Store,
    embedder: Embedder,
    progress: Callable[[int, int], None] | None = None,
    batch: int = BATCH,
) -> EmbedReport:
    """Embed every distinct chunk text lacking a vector of `embedder`'s model. Each batch is
    its own transaction, so an interruption loses at most one batch."""
    vectors = VectorStore(store.conn)
    with transaction(store.conn):
        dropped = vectors.set_model(embedder.name, embedder.dim, embedder.fingerprint)
    todo = vectors.missing(embedder.name)
    start = time.perf_counter()
    done = 0
    for group in batches(todo, batch):
        matrix = embedder.embed([text for _, text in group])
        with transaction(store.conn):
            vectors.put(
                embedder.name,
                ((h, encode_vector(v)) for (h, _), v in zip(group, matrix, strict=True)),
            )
        done += len(group)
        if progress is not None:
            progress(done, len(todo))
    chunks, _, _ = vectors.counts(embedder.name)
    return EmbedReport(embedder.name, done, chunks, time.perf_counter() - start, dropped)
