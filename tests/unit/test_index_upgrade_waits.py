"""What waits in an upgrade of the index is said. An upgrade from schema 5 that waits for room
on its disk was skipped in silence: status now says so, and so does the command that skipped
it, once."""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path
from typing import NamedTuple

import pytest

from memidx.cli.status_output import write_status
from memidx.config import Config, load_config
from memidx.haystack.filing import file
from memidx.haystack.turn_input import make_record
from memidx.index.open import writable_index
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.memory.json_objects import status_data
from memidx.memory.status import gather
from tests.helpers import run_in_process
from tests.unit.test_index_refold import SCHEMA_4_FTS
from tests.unit.test_index_vectors_table import SCHEMA_5_VECTORS


class Usage(NamedTuple):
    total: int
    used: int
    free: int


FREE = 4096  # bytes free on the short disk: less than two copies of any index


@pytest.fixture
def short_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's disk has one page free (the room check's `shutil.disk_usage`)."""

    def usage(_: object) -> Usage:
        return Usage(10 * FREE, 9 * FREE, FREE)

    monkeypatch.setattr(shutil, "disk_usage", usage)


OLD_TURN = "a turn filed before memidx was downgraded"


def _memory(root: Path, schema: int = SCHEMA_VERSION) -> Config:
    """A memory (no git) of one note and one turn, indexed, its index taken back to `schema`
    (5 or 4)."""
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("# Alpha\n\nalpha words about pages\n")
    assert run_in_process(root, "ingest").code == 0
    config = load_config(root)
    file(config, make_record("turn", OLD_TURN, session="s-4"))
    if schema == SCHEMA_VERSION:
        return config
    conn = sqlite3.connect(config.index_path, isolation_level=None)
    conn.executescript(SCHEMA_5_VECTORS + (SCHEMA_4_FTS if schema == 4 else ""))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return config


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def test_status_says_the_upgrade_waits_for_room_on_the_disk(
    tmp_path: Path, short_disk: None
) -> None:
    config = _memory(tmp_path, 5)

    status = gather(config)

    wait = status.upgrade_waits
    assert wait is not None
    assert status_data(status)["upgrade_waits"] == {
        "from": 5, "to": SCHEMA_VERSION, "needed_bytes": wait.needed, "free_bytes": FREE,
        "disk": wait.disk,
    }  # fmt: skip
    assert wait.needed > FREE
    assert Path(wait.disk).is_dir()
    out = io.StringIO()
    write_status(out, status)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("upgrade:")]
    assert lines == [
        f"upgrade:     index schema 5: upgrade to {SCHEMA_VERSION} waits for "
        f"{wait.needed / 1024 / 1024:.1f} MB free on {wait.disk} (0.0 MB free now)"
    ]
    assert status.healthy  # the index works as it is: no reason to exit 1


def test_status_says_nothing_of_an_upgrade_with_room_for_it(tmp_path: Path) -> None:
    config = _memory(tmp_path, 5)

    assert status_data(gather(config))["upgrade_waits"] is None


def test_the_command_that_skips_the_upgrade_for_room_says_so_once_on_stderr(
    tmp_path: Path, short_disk: None
) -> None:
    config = _memory(tmp_path, 5)

    synced = run_in_process(tmp_path, "sync")

    assert synced.code == 0, synced.err
    said = [line for line in synced.err.splitlines() if "waits for" in line]
    assert len(said) == 1, synced.err
    assert said[0].startswith("memidx: notice: index schema 5: upgrade to 6 waits for ")
    assert f"the index at {config.index_path} is written at schema 5 until then" in said[0]
    assert "waits" not in synced.out
    assert _version(config.index_path) == 5


def test_a_hurried_writer_short_of_room_says_nothing(tmp_path: Path, short_disk: None) -> None:
    """An agent's hook skips the upgrade for want of time whatever the room: its stdout is
    its agent's, and the upgrade is not its to do."""
    config = _memory(tmp_path, 5)
    notices: list[str] = []

    writable_index(config, notices.append, hurried=True).conn.close()

    assert notices == []
