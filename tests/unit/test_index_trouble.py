"""Trouble that passes (a full disk, a read-only file system, a lock, no permission) never
destroys the index: SQLite's errors are injected with their result codes while a writer opens
a real index file, which must be left byte for byte as it was. Damage is moved aside, and a
build that never completed is refused to readers."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from memidx.errors import MemidxError
from memidx.index import connection
from memidx.index.open import open_store
from memidx.index.schema import mark_built
from memidx.index.store import NewDocument, Store

SQLITE_IOERR_WRITE = 778  # an extended code: SQLITE_IOERR | (3 << 8)
SQLITE_CORRUPT_VTAB = 267


def sqlite_error(code: int, text: str) -> sqlite3.OperationalError:
    """An error as SQLite raises it, with its result code."""
    exc = sqlite3.OperationalError(text)
    exc.sqlite_errorcode = code  # type: ignore[attr-defined]
    return exc


class Failing(sqlite3.Connection):
    """A connection whose statements containing `Failing.on` raise `Failing.error`."""

    on = ""
    error: Exception = sqlite3.OperationalError()

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if Failing.on and Failing.on in sql:
            raise Failing.error
        return super().execute(sql, parameters)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Path]:
    """A real, built index file with one document, closed (no -wal left)."""
    path = tmp_path / ".memidx" / "index.sqlite"
    store, _ = open_store(path, write=True)
    with store.conn:
        store.upsert(
            NewDocument("note", "notes/a.md", "A", (), (), "kept words", 1, "hash-a", "blob", {})
        )
    mark_built(store.conn)
    store.conn.close()
    yield path
    Failing.on = ""


def fail(monkeypatch: pytest.MonkeyPatch, on: str, error: Exception) -> None:
    Failing.on, Failing.error = on, error
    monkeypatch.setattr(connection.sqlite3, "connect", partial(sqlite3.connect, factory=Failing))


PASSING = [
    (sqlite3.SQLITE_FULL, "database or disk is full", "free space"),
    (SQLITE_IOERR_WRITE, "disk I/O error", "check the disk"),
    (sqlite3.SQLITE_READONLY, "attempt to write a readonly database", "permissions"),
    (sqlite3.SQLITE_CANTOPEN, "unable to open database file", "permissions"),
    (sqlite3.SQLITE_BUSY, "database is locked", "try again"),
    (sqlite3.SQLITE_LOCKED, "database table is locked", "try again"),
]


@pytest.mark.parametrize("statement", ["journal_mode", "user_version", "sqlite_master"])
@pytest.mark.parametrize("case", PASSING)
def test_passing_trouble_while_a_writer_opens_leaves_the_index_as_it_was(
    index: Path, monkeypatch: pytest.MonkeyPatch, statement: str, case: tuple[int, str, str]
) -> None:
    code, text, hint = case
    before = index.read_bytes()
    fail(monkeypatch, statement, sqlite_error(code, text))

    with pytest.raises(MemidxError) as raised:
        open_store(index, write=True, verify=True)

    assert hint in str(raised.value) and "\n" not in str(raised.value)
    assert "rebuild" not in str(raised.value)
    monkeypatch.undo()
    assert index.read_bytes() == before
    assert not (index.parent / "broken").exists()
    store, _ = open_store(index, write=False)
    assert store.count() == 1
    store.conn.close()


@pytest.mark.parametrize(("code", "text", "hint"), PASSING[:4])
def test_passing_trouble_while_a_reader_opens_is_no_damage(
    index: Path, monkeypatch: pytest.MonkeyPatch, code: int, text: str, hint: str
) -> None:
    fail(monkeypatch, "user_version", sqlite_error(code, text))

    with pytest.raises(MemidxError) as raised:
        open_store(index, write=False)

    assert hint in str(raised.value) and "unusable" not in str(raised.value)


@pytest.mark.parametrize(
    "error",
    [
        sqlite_error(sqlite3.SQLITE_CORRUPT, "database disk image is malformed"),
        sqlite_error(SQLITE_CORRUPT_VTAB, "database disk image is malformed"),
        sqlite_error(sqlite3.SQLITE_NOTADB, "file is not a database"),
    ],
)
def test_damage_found_while_opening_is_moved_aside_never_deleted(
    index: Path, monkeypatch: pytest.MonkeyPatch, error: sqlite3.Error
) -> None:
    before = index.read_bytes()
    calls: list[str] = []
    real = connection.connect

    def damaged_once(path: Path) -> sqlite3.Connection:
        calls.append(str(path))
        if len(calls) == 1:
            raise error
        return real(path)

    monkeypatch.setattr("memidx.index.open.connect", damaged_once)
    store, said = open_store(index, write=True)
    store.conn.close()

    assert said is not None and "the damaged file was moved to" in said
    (kept,) = (index.parent / "broken").glob("index.sqlite.*")
    assert kept.read_bytes() == before and str(kept) in said


@pytest.mark.parametrize(
    ("error", "passing"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), True),
        (OSError(errno.EROFS, "Read-only file system"), True),
        (OSError(errno.EACCES, "Permission denied"), True),
        (OSError(errno.ENOENT, "No such file or directory"), False),
        (sqlite_error(sqlite3.SQLITE_FULL, "database or disk is full"), True),
        (sqlite_error(sqlite3.SQLITE_CORRUPT, "database disk image is malformed"), False),
        (sqlite_error(sqlite3.SQLITE_NOTADB, "file is not a database"), False),
        (sqlite3.OperationalError("database or disk is full"), True),  # no code: by its text
        (sqlite3.OperationalError("database disk image is malformed"), False),
        (sqlite3.OperationalError("no such table: documents"), False),
    ],
)
def test_passing_trouble_is_told_from_damage(error: Exception, passing: bool) -> None:
    assert connection.passing(error) is passing
    assert (connection.trouble(error, Path("/x/index.sqlite")) is not None) is passing


def test_a_build_that_never_completed_is_refused_to_readers(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    store, _ = open_store(path, write=True)  # created: its build has started
    with store.conn:  # some rows in, as a killed first filling leaves them
        store.upsert(NewDocument("note", "notes/a.md", "A", (), (), "words", 1, "h", "b", {}))
    store.conn.close()

    with pytest.raises(MemidxError) as raised:
        open_store(path, write=False)
    assert "has not completed" in str(raised.value) and "make ingest" in str(raised.value)

    store, _ = open_store(path, write=True)
    mark_built(store.conn)
    store.conn.close()
    store, _ = open_store(path, write=False)
    assert store.count() == 1
    store.conn.close()


def test_an_index_from_before_build_records_needs_a_completed_sync(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    store, _ = open_store(path, write=True)
    with store.conn:  # what an index of an earlier memidx looks like: no build records
        store.conn.execute("DELETE FROM state WHERE key LIKE 'build_%'")
    store.conn.close()
    with pytest.raises(MemidxError, match="never filled"):
        open_store(path, write=False)

    store, _ = open_store(path, write=True)
    with store.conn:
        store.set_state("indexed_at", "2026-01-01T00:00:00+00:00")
    store.conn.close()
    store, _ = open_store(path, write=False)
    assert isinstance(store, Store)
    store.conn.close()
