"""Filing records: turns, transcripts and facts appended to this clone's log and indexed at once,
from the CLI or from any thread of an agent process."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from memidx.config import Config
from memidx.errors import IndexLeft, MemidxError
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.filing_errors import not_filed
from memidx.haystack.frames import Record
from memidx.haystack.indexing import Filed, file_record, fill_index, index_segment
from memidx.haystack.left_segments import catch_up, caught_up, left_refs
from memidx.haystack.turn_input import make_record
from memidx.index.open import writable_index
from memidx.index.store import Store, transaction
from memidx.portable import LOCK_POLL


def file(
    config: Config,
    record: Record,
    notice: Callable[[str], None] | None = None,
    *,
    hurried: bool = False,
) -> Filed:
    """Append and index one record in a process of its own (the CLI, an agent's hook: a
    `hurried` one, see writable_index; on an index it cannot write as it is, it files in the
    log alone, see memidx.haystack.log_only)."""
    store = _open(config, notice, hurried=hurried)
    if store is None:
        from memidx.haystack.log_only import file_in_log

        return file_in_log(config, record, clone_writer(config, notice))
    try:
        return file_record(config, store, record, clone_writer(config, notice))
    finally:
        store.conn.close()


def read_left(config: Config, store: Store) -> None:
    """Read every segment a filing in the log alone named into the index, for a writer with
    time (the background embed: the hooks that filed while it filled the index, after it read
    the log, filed in the log alone, and it ran on without reading them)."""
    from memidx.haystack.writer import held_lock

    before: list[str] = []
    while (left := left_refs(config)) and left != before:  # none, as most times: no lock taken
        # the writer's lock, as a filing reads them, let go at each READ_BYTES: days filed in
        # the log alone held it for seconds, and a hook waiting to file passed its deadline;
        # taken again at once, it was never free when that hook looked (every LOCK_POLL)
        if before:
            time.sleep(2 * LOCK_POLL)
        with held_lock(config.state_dir / "haystack.lock"):
            before = left = left_refs(config)
            with transaction(store.conn):
                done = catch_up(left, lambda ref: index_segment(config, store, ref, left=True))
            caught_up(config, left, done)  # (unwritable: read again, once, then left to a sync)


def _open(
    config: Config, notice: Callable[[str], None] | None = None, *, hurried: bool = False
) -> Store | None:
    """The index to file into, or None when a hurried filer leaves its upgrade to another;
    what stops it opening is said as what it did to the record."""
    from memidx.index.connection import trouble

    try:
        return writable_index(config, notice, fill=fill_index, hurried=hurried)
    except IndexLeft:
        return None
    except MemidxError as exc:
        raise not_filed(exc) from exc
    except OSError as exc:  # a lock file in a read-only folder, a full disk
        said = trouble(exc, config.index_path)
        if said is None:
            raise
        raise not_filed(said) from exc


class Haystack:
    """File records from any thread; each thread opens and keeps its own SQLite connection."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.writer = clone_writer(config)
        self._local = threading.local()

    def _store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = _open(self.config)
            assert store is not None  # never hurried
            self._local.store = store
        return store

    def file(self, kind: str, text: str, **fields: object) -> Filed:
        """Append and index one record (turn, transcript or fact)."""
        return file_record(
            self.config, self._store(), make_record(kind, text, **fields), self.writer
        )

    def close(self) -> None:
        """Close this thread's connection."""
        store: Store | None = getattr(self._local, "store", None)
        if store is not None:
            store.conn.close()
            self._local.store = None


class BackgroundFiler:
    """A worker thread that files records, as a housekeeper in an agent does: `submit` returns
    a Future whose result() is the filed record, or raises the error that stopped it."""

    def __init__(self, config: Config) -> None:
        self._haystack = Haystack(config)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memidx-filer")

    def submit(self, kind: str, text: str, **fields: object) -> Future[Filed]:
        return self._executor.submit(self._haystack.file, kind, text, **fields)

    def close(self) -> None:
        """Finish what was submitted and close the worker's connection."""
        self._executor.submit(self._haystack.close).result()
        self._executor.shutdown(wait=True)

    def __enter__(self) -> BackgroundFiler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
