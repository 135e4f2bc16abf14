"""A forgotten note's vectors go with its chunks. The index keeps the vector of a text no chunk
holds any longer as a cache (a note restored, or renamed, is not embedded again), but a note
that was forgotten is to be gone from memory: five forgets left five vectors of their text,
which a rebuild of the index (ingest, embed) never has."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing

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
    """Drop the vectors (of any model) of these texts that no chunk holds now, and write the
    vector matrix files again without them. The note is forgotten, committed and gone from the
    index by then (the sync that followed dropped them, memidx.index.forgotten_notes, unless it
    read the whole tree): an index another process holds (or any trouble) costs only these
    vectors, said in a warning, never an error that has the person forget again a note that is
    no longer there."""
    try:
        if text_hashes and _left(config, text_hashes):
            _drop(config, text_hashes)
    except (MemidxError, sqlite3.Error, OSError) as exc:
        why = exc.message if isinstance(exc, MemidxError) else str(exc)
        if say is not None:
            say(
                f"warning: {ref} is forgotten, but the vectors of its text stay in the index: "
                f"{why} (a rebuild drops them: `make index`)"
            )
    scrub_forgotten(config, f"{ref} is forgotten", say)


def _left(config: Config, text_hashes: list[str]) -> bool:
    """Whether the index holds a vector of these texts that no chunk holds."""
    from memidx.index.connection import connect_reader

    marks = ", ".join("?" for _ in text_hashes)
    with closing(connect_reader(config.index_path)) as conn:
        row = conn.execute(
            f"SELECT 1 FROM vectors v WHERE v.text_hash IN ({marks}) AND NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.text_hash = v.text_hash) LIMIT 1",
            text_hashes,
        ).fetchone()
    return row is not None


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


def scrub_forgotten(
    config: Config,
    what: str,
    say: Callable[[str], None] | None,
    at: tuple[str, int] | None = None,
) -> None:
    """Write again from the index the vector matrix files made before it last dropped the
    vectors of forgotten text (`at`: the index's id and that generation, as a caller that had
    the index open read them; read from the index when None: a connection more, ~0.4 ms of
    every post-* hook in a clone that ever forgot), or made
    from another index (one deleted since, whatever its generation; removed unless the index
    holds that model's vectors): search
    ignores such a file, but its bytes held the forgotten vectors until the next embed, on this
    clone after a forget, on another after the pull that brought it. Where they cannot be
    written (no numpy, a full disk) they are removed: the next embed writes them, and search
    reads the index meanwhile. `what` begins the warning of a file that stays."""
    from memidx.index.matrix_header import matrix_files, stale_matrices

    try:
        if not matrix_files(config.index_path):
            return
        index_id, forgotten_at = _made_by(config) if at is None else at
        stale = stale_matrices(config.index_path, index_id, forgotten_at)
        if not stale:
            return
        from memidx.embed.matrix import scrub_matrices
        from memidx.index.store import open_store

        store, _ = open_store(config.index_path, write=False)
        with closing(store.conn):
            scrub_matrices(store.conn, config.index_path, durable=config.fsync)
        return
    except (ImportError, MemidxError, sqlite3.Error, OSError):
        stale = matrix_files(config.index_path)  # every file, removed below
    for path in stale:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            if say is not None:
                say(
                    f"warning: {what}, but the vector file {path} may hold the vectors of its "
                    f"text until the next embed: {exc.strerror or exc} (run `memidx embed`)"
                )


def _made_by(config: Config) -> tuple[str, int]:
    """The index's id, and its vector generation after its last drop of forgotten vectors."""
    from memidx.index.connection import connect_reader
    from memidx.index.vectors import VectorStore

    with closing(connect_reader(config.index_path)) as conn:
        vectors = VectorStore(conn)
        return vectors.index_id(), vectors.forgotten_at()
