"""Reading the index's header keeps SQLite's locks: a process with a live connection that
checks the header (as every writer and reader memidx opens does) must not let another process,
closing its own connection, take itself for the last one and delete the -wal and -shm."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.index import header
from memidx.index.ownership import APPLICATION_ID, header_id

WRITE_AND_CLOSE = (
    "import sqlite3, sys; conn = sqlite3.connect(sys.argv[1], isolation_level=None); "
    "conn.execute('INSERT INTO t VALUES (2)'); conn.close()"
)


def wal_database(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX locks")
def test_a_live_connection_keeps_its_wal_after_the_header_is_read(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    wal_database(path)
    reader = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        assert reader.execute("SELECT count(*) FROM t").fetchone() == (1,)
        assert header_id(path) == APPLICATION_ID
        subprocess.run([sys.executable, "-c", WRITE_AND_CLOSE, str(path)], check=True)
        assert Path(f"{path}-wal").exists() and Path(f"{path}-shm").exists()
        assert reader.execute("SELECT count(*) FROM t").fetchone() == (2,)
    finally:
        reader.close()


def test_a_replaced_file_is_read_anew_and_few_are_held(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    path.write_bytes(b"first")
    assert header.read_header(path, 5) == b"first"
    spare = tmp_path / "spare"
    spare.write_bytes(b"other")
    spare.replace(path)  # as a rebuilt index is put in place
    assert header.read_header(path, 100) == b"other"
    for n in range(header.HELD + 3):
        (tmp_path / f"{n}.sqlite").write_bytes(b"x")
        header.read_header(tmp_path / f"{n}.sqlite", 1)
    assert len(header._held) <= header.HELD  # pyright: ignore[reportPrivateUsage]
    path.unlink()
    with pytest.raises(FileNotFoundError):
        header.read_header(path, 1)
