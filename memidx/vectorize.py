"""Embed the chunks that have no vector of the active model (`memidx embed`)."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from memidx.config import Config
from memidx.embed import Embedder, batches, document_embedder, encode_vector
from memidx.store import Store, VectorStore, open_store, transaction
from memidx.trace import clear_failures, record_failure
from memidx.vecfile import refresh_matrix

BATCH = 64


@dataclass(frozen=True, slots=True)
class EmbedReport:
    """What one `memidx embed` did."""

    model: str
    embedded: int
    chunks: int
    seconds: float
    dropped: bool
    pruned: int = 0
    peak_rss_mb: float = 0.0

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


def embed_index(
    config: Config,
    store: Store,
    progress: Callable[[int, int], None] | None = None,
    *,
    prune: bool = False,
) -> EmbedReport:
    """`memidx embed`: embed what is missing, optionally prune, refresh the matrix file."""
    embedder = document_embedder(config)
    report = embed_missing(store, embedder, progress)
    pruned = 0
    if prune:
        with transaction(store.conn):
            pruned = VectorStore(store.conn).prune(config.model)
    refresh_matrix(store.conn, config.index_path, embedder.name, embedder.fingerprint, embedder.dim)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return replace(report, pruned=pruned, peak_rss_mb=peak)


def embed_in_background(config: Config) -> int:
    """What the hooks start: one embedder at a time (others wait), until nothing is missing.
    Failures go to .memidx/embed-error.log, which `memidx status` shows."""
    import fcntl

    config.state_dir.mkdir(parents=True, exist_ok=True)
    with (config.state_dir / "embed.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            store, _ = open_store(config.index_path, write=True)
            try:
                while embed_index(config, store).embedded:
                    pass
            finally:
                store.conn.close()
        except Exception as exc:  # noqa: BLE001 - detached: the trace is the only way to report
            record_failure(embed_error_path(config), "embed", f"{type(exc).__name__}: {exc}")
            return 1
    clear_failures(embed_error_path(config))
    return 0


def embed_error_path(config: Config) -> Path:
    return config.state_dir / "embed-error.log"
