"""Upgrades of an index an older memidx built, in place: ordered statements from each older
schema version to the next, which keep what is expensive to rebuild (vectors). Any other
older version is rebuilt; a newer one is refused (memidx.index.schema_version)."""

from __future__ import annotations

import os
import sqlite3
from contextlib import suppress

from memidx.index.connection import BUSY_TIMEOUT_MS, passing, transaction
from memidx.index.schema import (
    FTS,
    NOTE_ADDS,
    SEGMENTS,
    VECTORS,
    generation_triggers,
    statements,
)
from memidx.index.schema_version import READABLE, SCHEMA_VERSION
from memidx.index.upgrade_room import COPIES, room_for_copies

# version 5: the words of documents folded (Greek and Cyrillic accents as Latin ones), and
# emoji, symbols and private-use characters separate them: the full-text index is made anew
_REFOLD = (
    "DROP TRIGGER documents_ai;\nDROP TRIGGER documents_ad;\nDROP TRIGGER documents_au;\n"
    "DROP TABLE documents_fts;\n"
    + FTS
    + "INSERT INTO documents_fts(rowid, title, tags, aliases, body)\n"
    "    SELECT id, memidx_fold(title), memidx_fold(tags), memidx_fold(aliases), "
    "memidx_fold(body) FROM documents;\n"
)
# version 6: the vectors moved, byte for byte, to the rowid table (the same statement as a new
# index's); its triggers go with the old table and are made again
_COMPACT = (
    "ALTER TABLE vectors RENAME TO vectors_v5;\n"
    + VECTORS
    + "INSERT INTO vectors (text_hash, model, vector)\n"
    "    SELECT text_hash, model, vector FROM vectors_v5 ORDER BY text_hash, model;\n"
    "DROP TABLE vectors_v5;\n" + generation_triggers("vectors")
)


LOG_WAIT_MS = 200  # how long emptying the log waits for readers (_empty_log)

# version -> the statements that bring an index of that version to the next
MIGRATIONS: dict[int, str] = {2: SEGMENTS, 3: NOTE_ADDS, 4: _REFOLD, 5: _COMPACT}
_COMPACTED = 6  # the first version whose vectors are in the rowid table


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _upgradable(version: int) -> bool:
    return version < SCHEMA_VERSION and all(v in MIGRATIONS for v in range(version, SCHEMA_VERSION))


def upgradable(conn: sqlite3.Connection) -> int | None:
    """The schema version of an index an older memidx built, when the next writer upgrades it
    in place (keeping its vectors); else None."""
    start = _version(conn)
    return start if _upgradable(start) else None


def upgrade_waits(
    conn: sqlite3.Connection, *, hurried: bool = False, room: bool | None = None
) -> bool:
    """Whether the upgrade of an index of schema 5 waits; until then it is written as it is
    (the same columns). It waits for a writer with time for it: a `hurried` one (an agent's
    hook, cut off at its deadline) was cut off mid-upgrade (3-5 s at 30,000 vectors), which
    rolled back, and so was every one after it. And for room on its disk (twice its pages in
    use: the upgrade's copy of the vectors, then the VACUUM's of the file, in the log): a
    failed upgrade had left the log as large as the disk allowed (see _empty_log). `room`:
    what the opening found of that room already (None: not asked)."""
    if _version(conn) != READABLE:
        return False
    return hurried or not (room_for_copies(conn, COPIES) if room is None else room)


def migrate(conn: sqlite3.Connection) -> int | None:
    """Upgrade an index of an older, known version in place; returns the version it had, or
    None when there was nothing to upgrade (or no way to)."""
    try:
        start = _version(conn)
        if not _upgradable(start):
            return None
        with transaction(conn):
            for version in range(start, SCHEMA_VERSION):
                for statement in statements(MIGRATIONS[version]):
                    conn.execute(statement)
            conn.execute(
                "INSERT OR IGNORE INTO state (key, value) VALUES ('index_id', ?)",
                (os.urandom(16).hex(),),
            )
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except sqlite3.DatabaseError as exc:
        if passing(exc):  # a full disk: the upgrade waits, the index stays as it was
            _empty_log(conn)  # and so does the disk
            raise
        return None
    if start < _COMPACTED:
        _reclaim(conn)
    return start


def _reclaim(conn: sqlite3.Connection) -> None:
    """Give back the pages of the vectors' old table (half the file): until a VACUUM the file
    keeps their size as free pages. The upgrade is committed already: a VACUUM that fails (a
    lock) or has no room (it writes a copy of the file to the log, and one to a temporary
    file) leaves them free for the next writes. Its room is asked now, not taken from the
    upgrade's: the upgrade's new table grew the file by the vectors' size, and a VACUUM run
    on the room found before it filled the disk it was to spare."""
    _empty_log(conn)  # the upgrade's pages: their room is the VACUUM's
    with suppress(sqlite3.Error):
        if room_for_copies(conn, COPIES):
            conn.execute("VACUUM")
    _empty_log(conn)  # VACUUM wrote every page to the log


def _empty_log(conn: sqlite3.Connection) -> None:
    """Copy the log into the file and empty it. A transaction that failed on a full disk left
    the log as large as the disk allowed, and a reader that keeps the index open (an MCP or
    recall server) keeps it so after the writer closes: the disk stayed full for everyone.
    Emptying it waits for every reader to leave an older snapshot: a moment, not the busy
    timeout (a search under way held the upgrading hook, and every writer behind it, 5 s);
    a log a reader kept is reused by the next writes."""
    conn.execute(f"PRAGMA busy_timeout = {LOG_WAIT_MS}")
    try:
        with suppress(sqlite3.Error):
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
