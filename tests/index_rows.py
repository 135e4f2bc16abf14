"""Everything an index derives from the notes and the haystack, in a form two indexes can be
compared by: documents, chunks, the full-text index itself and skipped files (row ids left out:
an incremental index keeps its own)."""

from __future__ import annotations

from memidx.haystack.indexing import sync_records
from memidx.index.store import Store, connect_memory
from memidx.index.sync import ingest, note_source
from tests.gitops.compare import chunk_map, document_map

# A note whose rows an older reader wrote differently (YAML 1.1 booleans, and a body without
# its sections), shared by the unit and CLI tests of a reader change.
SWITCHES = """---
title: Switches
tags: [on, off]
aliases: [yes, no]
---

# Switches

Flip the switch on before the one that is off.

## Wiring

Red goes to red, black to black.
"""
OLDER_BODY = "Flip the switch on before the one that is off.\n"  # what an older reader kept

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.config import Config


def index_rows(store: Store) -> dict[str, object]:
    """The derived rows of an index, keyed by ref."""
    skipped = {
        ref: (s.blob_id, s.reason)
        for kind in ("note",)
        for ref, s in sorted(store.skips(kind).items())
    }
    return {
        "documents": document_map(store),
        "chunks": chunk_map(store),
        "fts": fts_terms(store),
        "skipped": skipped,
    }


def fts_terms(store: Store) -> list[tuple[object, ...]]:
    """Every (ref, column, offset, term) the FTS5 index holds: read from the full-text index
    (fts5vocab), not from the documents table its external content points at."""
    store.conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms "
        "USING fts5vocab(main, documents_fts, instance)"
    )
    return store.conn.execute(
        """SELECT d.source_ref, v.col, v.offset, v.term FROM temp.fts_terms v
           LEFT JOIN documents d ON d.id = v.doc ORDER BY 1, 2, 3, 4"""
    ).fetchall()


def rebuilt_rows(config: Config) -> dict[str, object]:
    """The rows a fresh rebuild of the same notes and haystack gives."""
    fresh = Store(connect_memory())
    try:
        ingest(config, fresh, note_source(config))
        sync_records(config, fresh, full=True)
        return index_rows(fresh)
    finally:
        fresh.conn.close()
