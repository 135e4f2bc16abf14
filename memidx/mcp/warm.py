"""The reading side of the MCP server: one read-only connection to the index, the model and the
vectors, loaded once and checked before every answer, so what other processes wrote (hooks,
other agents, `git pull`, an index rebuilt and put in place) is seen without a restart.

The checks are cheap: the index file's identity (a rebuilt index is another file), then
SQLite's `PRAGMA data_version` (changes when another connection commits: then the schema
version too, which a newer memidx may have upgraded in place), then the vectors' generation
(changes when a chunk or a vector does). Used from one thread only: SQLite
connections are never shared across threads."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from memidx.config import Config
from memidx.errors import IndexUnusable, MemidxError
from memidx.index.browse import NoteRow, note_row
from memidx.index.schema_version import refuse_newer
from memidx.index.store import Filters, Store, VectorStore, open_store
from memidx.paths import file_identity
from memidx.search.answer import answer, without_vectors
from memidx.search.json_result import search_data
from memidx.search.recent import recent

if TYPE_CHECKING:
    from memidx.embed.embedders import Embedder
    from memidx.search.searcher import Ahead, Searcher

Identity = tuple[int, int]  # device and inode of the index file: a rebuilt index is another


class WarmIndex:
    """The index, the model and the vectors of one server process."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._store: Store | None = None
        self._identity: Identity | None = None
        self._version = -1
        self._stamp: tuple[str, int] | None = None
        self._searcher: Searcher | None = None
        self.reopened = 0  # how often the index file changed under the server
        self.reloaded = 0  # how often the vectors were dropped because they changed

    def warm(self) -> None:
        """Open the index and load the model and the vectors now, not at the first search."""
        store = self.store()
        if without_vectors() is not None:
            return
        searcher = self._searcher_for(store)
        try:
            if VectorStore(store.conn).model(self.config.model) is None:
                return  # no vectors of the model: auto searches by words (with a warning)
            query = searcher.embedder().embed_query("warm up")  # a session's first is slower
            searcher.vectors().rank(query, 10, None)  # and reads the vectors from the disk
        except MemidxError:
            return  # auto falls back to words, and says why, at the first search

    def embed_ahead(self, text: str) -> Ahead | None:
        """Start embedding a query whose search is on its way. With forget_ahead, the methods
        called from another thread (the server's event loop): they touch the model, never the
        index."""
        searcher = self._searcher
        return searcher.embed_ahead(text) if searcher is not None else None

    def forget_ahead(self, ahead: Ahead) -> None:
        """The search `ahead` was started for will not come (Searcher.forget_ahead)."""
        searcher = self._searcher
        if searcher is not None:
            searcher.forget_ahead(ahead)

    def settle(self) -> None:
        """Start what a long-lived server builds in the background once it serves (the
        narrow first pass over many vectors); nothing when the vectors are not loaded."""
        if self._searcher is not None:
            self._searcher.settle()

    def store(self) -> Store:
        """The connection, current with the index file as it is now."""
        identity = file_identity(self.config.index_path)
        if self._store is not None and identity == self._identity:
            version = _data_version(self._store.conn)
            if version != self._version:
                # another process committed: maybe a newer memidx, upgrading in place
                refuse_newer(self._store.conn, self.config.index_path)
                self._version = version
                self._check_vectors(self._store)
            return self._store
        self.close()
        try:
            store, _ = open_store(self.config.index_path, write=False)
        except IndexUnusable as refused:  # a filing may have left it to a background build
            from memidx.mcp.building import wait_for_build

            wait_for_build(self.config, refused)
            identity = file_identity(self.config.index_path)  # the file the build made
            store, _ = open_store(self.config.index_path, write=False)
        try:
            version = _data_version(store.conn)
            refuse_newer(store.conn, self.config.index_path)  # upgraded since open_store looked
        except BaseException:
            store.conn.close()
            raise
        if self._identity is not None:
            self.reopened += 1
        self._store, self._identity, self._version = store, identity, version
        self._stamp = _vector_stamp(store.conn)
        if self._searcher is not None:
            self._searcher.store = store
            self._searcher.drop_vectors()
        return store

    def _check_vectors(self, store: Store) -> None:
        stamp = _vector_stamp(store.conn)
        if stamp != self._stamp:
            self._stamp = stamp
            if self._searcher is not None:
                self._searcher.drop_vectors()
                self.reloaded += 1

    def _searcher_for(self, store: Store) -> Searcher:
        from memidx.search.searcher import Searcher

        if self._searcher is None:
            embedder = _query_embedder(self.config)
            self._searcher = Searcher(store, self.config, coarse=True, _embedder=embedder)
        return self._searcher

    def search(self, text: str, filters: Filters, limit: int, mode: str) -> dict[str, object]:
        """memidx.search/1, as `memidx search --json` answers."""
        store = self.store()
        missing = without_vectors() if mode == "auto" else None
        words_only = mode == "bm25" or missing is not None
        searcher = None if words_only else self._searcher_for(store)
        result = answer(
            store, self.config, text, filters, limit, mode=mode, searcher=searcher,
            missing=missing,
        )  # fmt: skip
        return search_data(result)

    def recent(self, limit: int, project: str | None, kind: str | None) -> dict[str, object]:
        """memidx.recent/1: the newest notes and records."""
        store = self.store()
        return recent(store, limit, notes_dir=self.config.notes_dir, project=project, kind=kind)

    def note_row(self, ref: str) -> NoteRow:
        """What the index holds of a note, by its ref (`notes/...`, or relative to notes/)."""
        store = self.store()
        for candidate in (ref, f"{self.config.notes_dir}/{ref}"):
            found = note_row(store.conn, candidate)
            if found is not None:
                return found
        raise MemidxError(f"no note {ref!r} in the index", "give a note's ref as search shows it")

    def close(self) -> None:
        if self._store is not None:
            self._store.conn.close()
            self._store = None


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def _vector_stamp(conn: sqlite3.Connection) -> tuple[str, int]:
    vectors = VectorStore(conn)
    return vectors.index_id(), vectors.generation()


def _query_embedder(config: Config) -> Embedder | None:
    """The packaged model on one thread: one short query gains nothing from a second thread,
    and on a loaded machine (agents, hooks, embeds) it halves the time (63 against 120 ms at
    a load of 15 on 2 cores). Other models load as search loads them."""
    from memidx.config import DEFAULT_MODEL
    from memidx.embed.embedders import OnnxEmbedder

    if config.model != DEFAULT_MODEL:
        return None
    try:
        return OnnxEmbedder(config, threads=1, warm=True)
    except MemidxError:
        return None  # the searcher loads it again and says why, or falls back to words
