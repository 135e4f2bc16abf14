"""Forgotten text leaves the index file too: SQLite keeps a deleted row's bytes in free pages
and in its write-ahead log, and FTS5 keeps a deleted document's terms in its segments until
they merge, and the vectors table the vector of a chunk no document holds any longer (a
cache against embedding the same text again, but computed from the forgotten text). After a
purge (`memidx haystack purge`), none of them may stay on the disk."""

from __future__ import annotations

from contextlib import closing

from memidx.config import Config
from memidx.index.connection import transaction, trouble_reported
from memidx.index.open import writable_index
from memidx.index.schema_version import refuse_newer
from memidx.index.vectors import VectorStore


def scrub_index(config: Config) -> bool:
    """Rewrite the index without the bytes of what was deleted from it: the vectors of text no
    chunk holds dropped, the full-text index merged into one segment, every free page dropped,
    the log emptied. False when a reader kept the log from being emptied (its old pages may
    hold deleted text until the next)."""
    store = writable_index(config)
    with closing(store.conn), trouble_reported(config.index_path, write=True):
        conn = store.conn
        conn.execute("PRAGMA secure_delete = ON")  # pages freed below are zeroed
        with transaction(conn):  # under the write lock, refused if a newer memidx upgraded it
            VectorStore(conn).drop_unused()
            conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('optimize')")
        refuse_newer(conn, config.index_path)  # VACUUM runs outside any transaction
        conn.execute("VACUUM")
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    return not busy
