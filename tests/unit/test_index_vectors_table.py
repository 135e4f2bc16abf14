"""The vectors table keeps a 384-float vector (1,536 bytes) in about its own size, and an index
of schema 5 (a WITHOUT ROWID table: ~4.7 KB a vector, each spilling to an overflow page) is
upgraded in place keeping every vector byte for byte; a full disk or a crash mid-upgrade leaves
the old index usable."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memidx.index import connection, migrations
from memidx.index.connection import connect, connect_reader
from memidx.index.migrations import migrate
from memidx.index.schema import connect_memory, create_schema, generation_triggers, mark_built
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.index.store import VectorStore, open_store

MODEL = "memidx/all-MiniLM-L6-v2-int8"
# schema 5's vectors table and its triggers, as memidx wrote them
SCHEMA_5_VECTORS = (
    "ALTER TABLE vectors RENAME TO vectors_v6;\n"
    "CREATE TABLE vectors (\n    text_hash TEXT NOT NULL,\n    model TEXT NOT NULL,\n"
    "    vector BLOB NOT NULL,\n    PRIMARY KEY (text_hash, model)\n) WITHOUT ROWID;\n"
    "INSERT INTO vectors SELECT text_hash, model, vector FROM vectors_v6;\n"
    "DROP TABLE vectors_v6;\n"
    + generation_triggers("vectors")
    + "PRAGMA user_version = 5;\nVACUUM;\n"
)
ROWS = "SELECT text_hash, model, vector FROM vectors ORDER BY text_hash, model"
SCHEMA = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"


def _vectors(count: int) -> list[tuple[str, bytes]]:
    """(text hash, 1,536-byte vector) pairs, distinct and deterministic."""
    found: list[tuple[str, bytes]] = []
    for n in range(count):
        seed = hashlib.sha256(str(n).encode()).digest()
        found.append((seed.hex(), (seed * 48)[:1536]))
    return found


def _vector_bytes(conn: sqlite3.Connection) -> int:
    row = conn.execute(
        "SELECT sum(pgsize) FROM dbstat WHERE name IN ('vectors', 'sqlite_autoindex_vectors_1')"
    ).fetchone()
    return int(row[0])


def test_a_vector_takes_little_more_than_its_own_size() -> None:
    """Two rows fill a 4 KB page: ~2.2 KB a vector with the lookup index (a few pages more
    for the b-trees' inner pages at this count), not ~4.7 KB."""
    conn = connect_memory()
    with conn:
        VectorStore(conn).put(MODEL, _vectors(200))
    assert _vector_bytes(conn) / 200 < 2500


def _schema_5_index(path: Path) -> list[tuple[object, ...]]:
    """An index of schema 5 holding vectors; its vector rows."""
    conn = connect(path)
    create_schema(conn)
    with conn:
        VectorStore(conn).put(MODEL, _vectors(60))
        VectorStore(conn).put("other/model", _vectors(3))
    mark_built(conn)
    conn.executescript(SCHEMA_5_VECTORS)
    rows = conn.execute(ROWS).fetchall()
    assert _vector_bytes(conn) / 63 > 4000  # what the upgrade is for
    conn.close()
    return rows


def _assert_upgraded(path: Path, rows: list[tuple[object, ...]]) -> None:
    store, _ = open_store(path, write=False)
    conn = store.conn
    assert conn.execute(ROWS).fetchall() == rows
    assert conn.execute(SCHEMA).fetchall() == connect_memory().execute(SCHEMA).fetchall()
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0  # the old table's pages
    assert _vector_bytes(conn) / len(rows) < 2500
    conn.close()


def test_a_schema_5_index_is_upgraded_keeping_every_vector_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    rows = _schema_5_index(path)
    generation = VectorStore(sqlite3.connect(path)).generation()

    store, said = open_store(path, write=True)

    assert said == f"upgraded the index at {path} from schema 5 to {SCHEMA_VERSION}"
    assert VectorStore(store.conn).generation() == generation  # the matrix file stays valid
    store.conn.close()
    _assert_upgraded(path, rows)


def test_a_hurried_writer_writes_a_schema_5_index_as_it_is(tmp_path: Path) -> None:
    """An agent's hook: its deadline is shorter than the upgrade of a large index."""
    path = tmp_path / "index.sqlite"
    rows = _schema_5_index(path)

    store, said = open_store(path, write=True, hurried=True)

    assert said is None
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == 5
    with store.conn:
        VectorStore(store.conn).put(MODEL, [("f" * 64, bytes(1536))])
    store.conn.close()
    open_store(path, write=True)[0].conn.close()  # the next writer with time for it upgrades
    _assert_upgraded(path, sorted([*rows, ("f" * 64, MODEL, bytes(1536))]))


def test_a_full_disk_mid_upgrade_leaves_the_index_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    rows = _schema_5_index(path)
    before = path.read_bytes()
    conn = connect(path)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # no room for the new table

    with pytest.raises(sqlite3.OperationalError, match="full"):
        migrate(conn)

    assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
    assert conn.execute(ROWS).fetchall() == rows
    conn.close()
    assert path.read_bytes() == before
    open_store(path, write=True)[0].conn.close()  # room again: the next writer upgrades it
    _assert_upgraded(path, rows)


# a process killed as it starts a statement of the upgrade: before its commit, or in the VACUUM
# that gives the old table's pages back after it
CRASH = """
import os, sys
from pathlib import Path
from memidx.index.connection import connect
from memidx.index.migrations import migrate

def crash(statement: str) -> None:
    if statement.startswith(sys.argv[2]):
        os._exit(9)

conn = connect(Path(sys.argv[1]))
conn.set_trace_callback(crash)
migrate(conn)
"""


@pytest.mark.parametrize(("at", "version"), [("DROP TABLE vectors_v5", 5), ("VACUUM", 6)])
def test_a_crash_mid_upgrade_leaves_a_usable_index(tmp_path: Path, at: str, version: int) -> None:
    path = tmp_path / "index.sqlite"
    rows = _schema_5_index(path)

    killed = subprocess.run([sys.executable, "-c", CRASH, str(path), at], check=False)

    assert killed.returncode == 9
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == version
    assert conn.execute(ROWS).fetchall() == rows
    conn.close()
    open_store(path, write=True)[0].conn.close()
    store, _ = open_store(path, write=False)
    assert store.conn.execute(ROWS).fetchall() == rows
    store.conn.close()


def test_a_reader_mid_search_holds_the_upgrade_up_for_no_more_than_a_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log is emptied around the VACUUM (its pages are a copy of the file), which waits
    for every reader to leave the snapshot before it: a search under way held the upgrading
    writer (a hook, under the creation lock every writer waits for) 5 s for each, 10 s. The
    busy timeout is stretched to 30 s here, so that an upgrade that waits it shows on any
    load: 2 s was past a loaded machine's upgrade that waited for no one."""
    for module in (connection, migrations):
        monkeypatch.setattr(module, "BUSY_TIMEOUT_MS", 30_000)
    path = tmp_path / "index.sqlite"
    rows = _schema_5_index(path)
    reader = connect_reader(path)
    reader.execute("BEGIN")  # a search under way: its snapshot of the index at schema 5
    assert reader.execute(ROWS).fetchall() == rows

    began = time.monotonic()
    store, said = open_store(path, write=True)
    took = time.monotonic() - began

    assert said is not None and "from schema 5" in said
    assert took < 15.0, took
    assert reader.execute(ROWS).fetchall() == rows  # the search goes on, on its snapshot
    reader.execute("COMMIT")
    store.conn.close()
    reader.close()
    _assert_upgraded(path, rows)
