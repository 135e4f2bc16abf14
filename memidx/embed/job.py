"""Embed the chunks that have no vector of the active model (`memidx embed`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from memidx.config import Config
from memidx.embed.embedders import Embedder, batches, document_embedder, encode_vector
from memidx.embed.matrix import refresh_matrix
from memidx.embed.running import embedding, forget_mark
from memidx.errors import MemidxError
from memidx.index.failures import clear_failures, record_failure
from memidx.index.open import writable_index
from memidx.index.ownership import remove_others_matrices
from memidx.index.store import Store, VectorStore, transaction
from memidx.paths import file_identity
from memidx.portable import file_lock, peak_memory_mb
from memidx.state_folder import ensure_folder

BATCH = 64
REPLACED = "the index was deleted or replaced while embedding"
REPLACED_HINT = "run `memidx embed` again"


class IndexReplaced(MemidxError):
    """The index was deleted or replaced (a rebuild, a deleted clone) while embedding."""


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
    *,
    current: Callable[[], bool] | None = None,
) -> EmbedReport:
    """Embed every distinct chunk text lacking a vector of `embedder`'s model. Each batch is
    its own transaction, so an interruption loses at most one batch. Before each batch,
    `current` says whether `store` is still the index (IndexReplaced when not)."""
    vectors = VectorStore(store.conn)
    with transaction(store.conn):
        dropped = vectors.set_model(embedder.name, embedder.dim, embedder.fingerprint)
    todo = vectors.missing(embedder.name)
    start = time.perf_counter()
    done = 0
    for group in batches(todo, batch):
        if current is not None and not current():
            raise IndexReplaced(REPLACED, REPLACED_HINT)
        matrix = embedder.embed([text for _, text in group])
        with transaction(store.conn):  # a chunk forgotten since `todo` was read gets none
            vectors.put_held(
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
    embedder: Embedder | None = None,
    waiting: Callable[[], None] | None = None,
) -> EmbedReport:
    """`memidx embed`: embed what is missing, optionally prune, refresh the matrix file; one
    embedder at a time per clone (a background one finishes first; `waiting` is called when
    this one has to wait for it). A hook whose embedder left at this lock meanwhile left its
    mark: embed again until there is none, or its chunks would wait for the next commit."""
    pending = _pending(config)
    report: EmbedReport | None = None
    bound = file_identity(config.index_path)  # the file `store` was opened on
    while report is None or _marked(pending):
        with _embed_lock(config, wait=True, waiting=waiting):
            _take_mark(pending)  # this run embeds what the mark was left for
            embedder = embedder or document_embedder(config)
            done = _embed_index(
                config, store, progress, prune=prune, embedder=embedder, bound=bound
            )
            forget_mark(config.state_dir)  # a killed background embed's: this one finished it
        report = done if report is None else _added(report, done)
    return report


def _added(first: EmbedReport, then: EmbedReport) -> EmbedReport:
    return replace(
        then,
        embedded=first.embedded + then.embedded,
        seconds=first.seconds + then.seconds,
        dropped=first.dropped or then.dropped,
        pruned=first.pruned + then.pruned,
    )


def _embed_index(
    config: Config,
    store: Store,
    progress: Callable[[int, int], None] | None,
    *,
    prune: bool,
    embedder: Embedder,
    bound: tuple[int, int] | None,
) -> EmbedReport:
    """Embed into `store`, opened on the index file `bound` identifies; once that file is
    deleted or replaced, stop (IndexReplaced), and write no matrix file for it: the folder it
    would go in may be a deleted clone's, or hold the rebuilt index's file."""

    def current() -> bool:
        return bound is not None and file_identity(config.index_path) == bound

    report = embed_missing(store, embedder, progress, current=current)
    pruned = 0
    if prune:
        with transaction(store.conn):
            pruned = VectorStore(store.conn).prune(config.model)
    if not current():
        raise IndexReplaced(REPLACED, REPLACED_HINT)
    refresh_matrix(
        store.conn, config.index_path, embedder.name, embedder.fingerprint, embedder.dim,
        durable=config.fsync,
    )  # fmt: skip
    remove_others_matrices(config.index_path)  # a deleted index's: by their headers
    return replace(report, pruned=pruned, peak_rss_mb=peak_memory_mb())


@contextmanager
def _embed_lock(
    config: Config, *, wait: bool, waiting: Callable[[], None] | None = None
) -> Generator[bool]:
    """The clone's embed lock; yields whether it was taken (always, when `wait`: after
    calling `waiting` if another embedder holds it)."""
    path = config.state_dir / "embed.lock"
    with file_lock(path, wait=False) as taken:
        if taken or not wait:
            yield taken
            return
    if waiting is not None:
        waiting()
    with file_lock(path, wait=True) as taken:
        yield taken


def embed_in_background(
    config: Config,
    fill: Callable[[Config, Store], None] | None = None,
    read_left: Callable[[Config, Store], None] | None = None,
) -> int:
    """What hooks and filing start, detached. Each start leaves a mark that there is work; one
    embedder runs at a time and works until no mark is left, so a burst of commits starts one
    model, not one per commit. Failures go to .memidx/embed-error.log (`memidx status`). An
    index not built (missing, half built) is filled by `fill` first (every note and record):
    an agent's hook leaves that to this writer with time for it, and files in the log alone;
    `read_left` reads such records into the index at each mark (those filed while it filled)."""
    pending = _pending(config)
    try:
        ensure_folder(config.state_dir, parents=False)  # never the clone's: it may be gone
        _leave_mark(pending)  # before trying the lock: a running embedder will see it
    except FileNotFoundError:
        return 0  # the clone was deleted before this embedder started
    except OSError as exc:
        from memidx.drafts import NOT_OWN, not_own

        why = not_own(pending) if exc.errno in NOT_OWN else f"{type(exc).__name__}: {exc}"
        record_failure(embed_error_path(config), "embed", why)
        return 1
    embedder: Embedder | None = None
    follows = 0  # indexes replaced under this run that it went on embedding
    try:
        while _marked(pending):
            with _embed_lock(config, wait=False) as mine:
                if not mine:
                    return 0  # the running embedder checks the mark before it leaves
                # the mark is left only if this one is killed
                with embedding(config.state_dir, durable=config.fsync) as progress:
                    try:
                        embedder = _embed_marked(
                            config, pending, embedder, progress, fill=fill, read_left=read_left
                        )
                    except IndexReplaced:
                        if not _follow(config, pending, follows):
                            return 0  # deleted: whoever builds a new index starts its embedder
                        follows += 1
    except Exception as exc:  # noqa: BLE001 - detached: the trace is the only way to report
        if not config.state_dir.is_dir():
            return 0  # the clone (or its .memidx) is gone: a trace would bring its folder back
        record_failure(embed_error_path(config), "embed", f"{type(exc).__name__}: {exc}")
        return 1
    clear_failures(embed_error_path(config))
    return 0


FOLLOWS = 3  # indexes replaced under one background run it goes on to (rebuilt in a loop: no)


def _embed_marked(
    config: Config,
    pending: Path,
    embedder: Embedder | None,
    progress: Callable[[], None],
    *,
    fill: Callable[[Config, Store], None] | None,
    read_left: Callable[[Config, Store], None] | None,
) -> Embedder | None:
    """Embed into the index as it is now while a mark is left; the embedder, once loaded."""
    store = writable_index(config, fill=fill)
    bound = file_identity(config.index_path)
    try:
        while _marked(pending):
            _take_mark(pending)
            if read_left is not None:
                read_left(config, store)
            embedder = embedder or document_embedder(config)
            _embed_index(
                config, store, lambda _done, _todo: progress(), prune=False,
                embedder=embedder, bound=bound,
            )  # fmt: skip
    finally:
        store.conn.close()
    return embedder


def _follow(config: Config, pending: Path, follows: int) -> bool:
    """Whether to go on embedding an index that replaced the one this run embedded into (a
    rebuild, `memidx ingest`): its chunks have no vectors yet, and the embedder its builder
    started found this one at work and left (its mark taken by this run), so no one else
    embeds them until the next filing. A deleted index, or clone, is left alone."""
    if follows >= FOLLOWS or not config.state_dir.is_dir() or not config.index_path.is_file():
        return False
    _leave_mark(pending)  # the loop goes on while there is one
    return True


def _leave_mark(pending: Path) -> None:
    """Make the mark where there is none. Path.touch followed a link there: one to a file
    set that file's time, a dangling one made the file it names (ELOOP now)."""
    import errno
    import stat

    from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW

    fd = os.open(pending, os.O_RDONLY | os.O_CREAT | NO_FOLLOW | NO_FIFO_WAIT, 0o666)
    try:  # a FIFO opens (read-only, not waited on): no mark of memidx's, never removed by it
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.ENXIO, "no file", str(pending))
    finally:
        os.close(fd)


def _marked(pending: Path) -> bool:
    """Whether the mark is there: a file, never a link, a FIFO or a folder in its place (which
    memidx did not make, so never removes; it is said by the hook that leaves the mark)."""
    import stat

    try:
        return stat.S_ISREG(os.lstat(pending).st_mode)
    except OSError:
        return False


def _take_mark(pending: Path) -> None:
    """Remove the mark (this run embeds what it was left for), only if it is one."""
    if _marked(pending):
        pending.unlink(missing_ok=True)


def _pending(config: Config) -> Path:
    """The mark a hook leaves that there are chunks to embed."""
    return config.state_dir / "embed.pending"


def embed_error_path(config: Config) -> Path:
    return config.embed_error_path
