"""The index's schema version: the refusal of an index a newer memidx built, and what a reader
says of one an older memidx built.

A process started before an upgrade (an agent's MCP server, the recall server, a background
embed) outlives it and meets the index the new code upgraded. Taking that for an index "of
another version" and rebuilding it at its own, older schema threw away hours of vectors, which
the next new process then had to embed again. A version above this code's is never rebuilt,
upgraded or written: every opening and every write transaction refuses it (NewerIndex)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memidx.errors import NEWER_HINT, IndexUnusable, NewerIndex

SCHEMA_VERSION = 6
# A reader cannot upgrade an older index (it only reads); nor can it search one older than
# schema 5: schema 5 folds words anew, so the query's words would miss the older full-text
# index's (Greek and Cyrillic accents, emoji) and a search would hide notes. Schema 6 only
# stores the same vectors' columns in a rowid table, so a reader reads an index of schema 5 as
# it is (refusing it broke every search, hook and MCP server until a writer came). Any writer
# upgrades it in one transaction.
READABLE = 5  # the oldest schema a reader reads as it is
UPGRADE_HINT = (
    "run `memidx sync` (or `make ingest`) once: it upgrades the index in place, keeping its "
    "vectors; nothing is lost"
)


def newer_version(conn: sqlite3.Connection) -> int | None:
    """The index's schema version when it is newer than this code's, else None."""
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    return found if found > SCHEMA_VERSION else None


def newer_index(path: Path | str, found: int) -> NewerIndex:
    """The one-line refusal of an index of schema `found` at `path`."""
    return NewerIndex(
        f"the index at {path} was built by a newer memidx (schema {found}, this one knows "
        f"{SCHEMA_VERSION})",
        NEWER_HINT,
    )


def older_index(path: Path, found: int) -> IndexUnusable:
    """What a reader says of an index of schema `found` that the next writer upgrades."""
    return IndexUnusable(
        f"the index at {path} was built by an older memidx (schema {found}, this one knows "
        f"{SCHEMA_VERSION})",
        UPGRADE_HINT,
    )


def refuse_newer(conn: sqlite3.Connection, path: Path | None = None) -> None:
    """Raise NewerIndex when the index on `conn` was built by a newer memidx."""
    found = newer_version(conn)
    if found is None:
        return
    if path is None:  # inside a transaction: the file the connection has open
        path = Path(str(conn.execute("PRAGMA database_list").fetchone()[2]) or ":memory:")
    raise newer_index(path, found)
