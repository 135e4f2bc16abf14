"""A forgotten note's vectors go with its chunks. The index keeps the vector of a text no chunk
holds any longer as a cache (a note restored, or renamed, is not embedded again), but a note
that was forgotten is to be gone from memory: five forgets left five vectors of their text,
which a rebuild of the index (ingest, embed) never has."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError


def note_text_hashes(config: Config, ref: str) -> list[str]:
    """The text hashes of the chunks the index holds for the note `ref`; none when there is no
    index to read (the sync that builds one has no vector of it either)."""
    from memidx.index.connection import connect_reader

    path = config.index_path
    try:
        if not path.is_file():
            return []
        with closing(connect_reader(path)) as conn:
            rows = conn.execute(
                """SELECT DISTINCT c.text_hash FROM chunks c JOIN documents d ON d.id = c.doc_id
                   WHERE d.source_kind = 'note' AND d.source_ref = ?""",
                (ref,),
            ).fetchall()
    except (MemidxError, sqlite3.Error, OSError):
        return []  # an index the sync after the forget rebuilds: it has no vector to drop
    return [str(row[0]) for row in rows]


def drop_forgotten_vectors(
    config: Config, ref: str, text_hashes: list[str], say: Callable[[str], None] | None
) -> None:
    """Drop the vectors (of any model) of these texts that no chunk holds now. The note is
    forgotten, committed and gone from the index by then: an index another process holds
    (or any trouble) costs only these vectors, said in a warning, never an error that has
    the person forget again a note that is no longer there."""
    if not text_hashes:
        return
    try:
        _drop(config, text_hashes)
        drop_from_matrices(config, ref, say)
    except (MemidxError, sqlite3.Error, OSError) as exc:
        why = exc.message if isinstance(exc, MemidxError) else str(exc)
        if say is not None:
            say(
                f"warning: {ref} is forgotten, but the vectors of its text stay in the index: "
                f"{why} (a rebuild drops them: `make index`)"
            )


def _drop(config: Config, text_hashes: list[str]) -> None:
    from memidx.index.connection import transaction, trouble_reported
    from memidx.index.open import writable_index
    from memidx.index.vectors import VectorStore

    store = writable_index(config)
    with (
        closing(store.conn),
        trouble_reported(config.index_path, write=True),
        transaction(store.conn),
    ):
        VectorStore(store.conn).drop_texts(text_hashes)


def drop_from_matrices(config: Config, ref: str, say: Callable[[str], None] | None) -> None:
    """Write the vector matrix files again from the index as it is now: search ignores one
    made before a forget, but its bytes held the forgotten text's vectors until the next
    embed. Where they cannot be written (no numpy, a full disk) they are removed: the next
    embed writes them, and search reads the index meanwhile."""
    folder = Path(f"{config.index_path}-vectors")
    if not folder.is_dir():
        return
    try:
        from memidx.embed.matrix import scrub_matrices
        from memidx.index.store import open_store

        store, _ = open_store(config.index_path, write=False)
        with closing(store.conn):
            scrub_matrices(store.conn, config.index_path, durable=config.fsync)
        return
    except (ImportError, MemidxError, sqlite3.Error, OSError):
        pass  # removed below
    try:
        for path in folder.glob("*.mxv"):
            path.unlink(missing_ok=True)
    except OSError as exc:
        if say is not None:
            say(
                f"warning: {ref} is forgotten, but the vector files in {folder} may hold the "
                f"vectors of its text until the next embed: {exc} (run `memidx embed`)"
            )
