"""A connection to the index file and its transactions: WAL, a busy timeout, BEGIN IMMEDIATE."""

from __future__ import annotations

import sqlite3
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from memidx.errors import REBUILD_HINT, IndexBusy, IndexUnusable

BUSY_TIMEOUT_MS = 5000


def connect(path: Path, *, create: bool) -> sqlite3.Connection:
    """Open the index; with create=False a missing file is IndexUnusable, never a new file."""
    if not create and not path.is_file():
        raise IndexUnusable(f"no index at {path}", REBUILD_HINT)
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    uri = f"{path.resolve().as_uri()}?mode={'rwc' if create else 'rw'}"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as exc:
        raise IndexUnusable(
            f"the index at {path} is unusable: {describe(exc)}", REBUILD_HINT
        ) from exc
    return conn


def describe(exc: sqlite3.DatabaseError) -> str:
    """What SQLite's error says about the file, in the user's words."""
    text = str(exc)
    if "not a database" in text:
        return "the file is not an SQLite database"
    if "malformed" in text:
        return "the file is damaged (database disk image is malformed)"
    return text


@contextmanager
def transaction(conn: sqlite3.Connection) -> Generator[None]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; a held lock is IndexBusy."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise IndexBusy(
                "the index is locked by another memidx process",
                "wait for it to finish, then try again",
            ) from exc
        raise
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (disk full, I/O error)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Generator[None]:
    """One read transaction: every query inside sees the same state of the index, even while
    a hook commits (WAL readers never block writers)."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")
