"""What waits in an upgrade of the index is said, and loses nothing. An upgrade from schema 5
that waits for room on its disk was skipped in silence: status now says so, and so does the
command that skipped it, once. An index of schema 4 or older cannot be written as it is: an
agent's hook (hurried) upgraded it inside its deadline, and filed nothing when cut off; it now
files the exchange in the log alone, and the next writer with time for it upgrades the index
and reads the record from the log."""

from __future__ import annotations

import io
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

import memidx.index.open
from memidx import portable
from memidx.agents import actions
from memidx.agents.exchange import Exchange
from memidx.agents.session import Where
from memidx.cli.status_output import write_status
from memidx.config import Config, load_config
from memidx.haystack.filing import file
from memidx.haystack.frames import scan_file
from memidx.haystack.turn_input import make_record
from memidx.index.open import writable_index
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.index.store import open_store
from memidx.mcp import answers
from memidx.memory.head_sync import sync_to_head
from memidx.memory.json_objects import status_data
from memidx.memory.status import gather
from memidx.portable import file_lock
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


def memory_at_schema(root: Path, schema: int = SCHEMA_VERSION) -> Config:
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


def schema_of(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def indexed(path: Path, words: str) -> int:
    """How many documents of the index at `path` hold `words` (none: no index there)."""
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        found = "SELECT count(*) FROM documents WHERE body LIKE ?"
        return int(conn.execute(found, (f"%{words}%",)).fetchone()[0])
    finally:
        conn.close()


def test_status_says_the_upgrade_waits_for_room_on_the_disk(
    tmp_path: Path, short_disk: None
) -> None:
    config = memory_at_schema(tmp_path, 5)

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


def silent_disk(_: object) -> Usage:
    """`shutil.disk_usage` on a disk that would not say (statvfs fails on some FUSE and
    network file systems)."""
    raise OSError(38, "Function not implemented")


def no_room_reserved(_folder: Path, _size: int) -> bool:
    """`memidx.portable.room_reserved` on a disk short of room."""
    return False


def test_a_writer_upgrades_an_index_whose_disk_would_not_say_its_free_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Free space unknown was taken for no room: the index of a memory on such a disk was
    never upgraded (twice the room for its vectors), and status said it waited, for ever.
    The room is found by allocating it (memidx.portable.room_reserved), here on a disk with
    room for it."""
    config = memory_at_schema(tmp_path, 5)
    monkeypatch.setattr(shutil, "disk_usage", silent_disk)

    assert status_data(gather(config))["upgrade_waits"] is None
    synced = run_in_process(tmp_path, "sync")

    assert synced.code == 0, synced.err
    assert "waits for" not in synced.err
    assert schema_of(config.index_path) == SCHEMA_VERSION
    assert indexed(config.index_path, OLD_TURN) == 1
    assert [p.name for p in config.state_dir.iterdir() if "room" in p.name] == []


def test_status_says_the_free_space_is_unknown_when_the_disk_would_not_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed `disk_usage` was counted as 0 bytes free, and said as "(0.0 MB free now)"."""
    config = memory_at_schema(tmp_path, 5)
    monkeypatch.setattr(shutil, "disk_usage", silent_disk)
    monkeypatch.setattr(portable, "room_reserved", no_room_reserved)

    status = gather(config)

    wait = status.upgrade_waits
    assert wait is not None  # not room enough to allocate: the upgrade waits
    assert status_data(status)["upgrade_waits"] == {
        "from": 5, "to": SCHEMA_VERSION, "needed_bytes": wait.needed, "free_bytes": None,
        "disk": wait.disk,
    }  # fmt: skip
    out = io.StringIO()
    write_status(out, status)
    assert f"free on {wait.disk} (free space unknown)\n" in out.getvalue()
    assert "MB free now" not in out.getvalue()


def test_status_says_nothing_of_an_upgrade_with_room_for_it(tmp_path: Path) -> None:
    config = memory_at_schema(tmp_path, 5)

    assert status_data(gather(config))["upgrade_waits"] is None


def test_the_command_that_skips_the_upgrade_for_room_says_so_once_on_stderr(
    tmp_path: Path, short_disk: None
) -> None:
    config = memory_at_schema(tmp_path, 5)

    synced = run_in_process(tmp_path, "sync")

    assert synced.code == 0, synced.err
    said = [line for line in synced.err.splitlines() if "waits for" in line]
    assert len(said) == 1, synced.err
    assert said[0].startswith("memidx: notice: index schema 5: upgrade to 6 waits for ")
    assert f"the index at {config.index_path} is written at schema 5 until then" in said[0]
    assert "waits" not in synced.out
    assert schema_of(config.index_path) == 5


def test_a_hurried_writer_short_of_room_says_nothing(tmp_path: Path, short_disk: None) -> None:
    """An agent's hook skips the upgrade for want of time whatever the room: its stdout is
    its agent's, and the upgrade is not its to do."""
    config = memory_at_schema(tmp_path, 5)
    notices: list[str] = []

    writable_index(config, notices.append, hurried=True).conn.close()

    assert notices == []


def _file_hurried(config: Config, text: str) -> tuple[str, bool]:
    filed = file(config, make_record("turn", text, session="s-4"), hurried=True)
    return filed.ref, filed.duplicate


def _capture(config: Config, answer: str) -> None:
    """The Stop hook's filing, as every agent's adapter calls it."""
    where = Where("claude-code", "session-4", str(config.root))
    exchange = Exchange("which index is of schema four?", (answer,), closed=True)
    assert [f.duplicate for f in actions.capture(config, where, [exchange])] == [False]


def by_sync(config: Config) -> None:
    assert run_in_process(config.root, "sync").code == 0


def by_ingest(config: Config) -> None:
    assert run_in_process(config.root, "ingest").code == 0


def by_git_hook(config: Config) -> None:
    sync_to_head(config)  # what every post-* git hook runs


def _by_embed_then_filing(config: Config) -> None:
    """The background embed the hook starts upgrades (a writer with time); the next filing
    into the upgraded index reads the segment written since."""
    writable_index(config).conn.close()
    _file_hurried(config, "a later turn, into the upgraded index")


@pytest.mark.parametrize("catch_up", [by_sync, by_ingest, by_git_hook, _by_embed_then_filing])
def test_a_hook_files_in_the_log_alone_on_a_schema_4_index_and_the_next_writer_indexes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, catch_up: Callable[[Config], None]
) -> None:
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    config = memory_at_schema(tmp_path, 4)
    index = config.index_path
    before = index.read_bytes()

    _capture(config, "the one kept in the log")
    ref, duplicate = _file_hurried(config, "a turn filed twice")
    again = _file_hurried(config, "a turn filed twice")

    assert not duplicate and again == (ref, True)
    assert index.read_bytes() == before  # no upgrade in the hook: not a byte written
    segment = tmp_path / ref.rsplit("@", 1)[0]
    texts = [located.record.text for located in scan_file(segment).records]
    assert sum("the one kept in the log" in text for text in texts) == 1
    assert texts.count("a turn filed twice") == 1
    assert indexed(index, "kept in the log") == 0

    catch_up(config)

    assert schema_of(index) == SCHEMA_VERSION
    assert indexed(index, "the one kept in the log") == 1
    assert indexed(index, "a turn filed twice") == 1
    store, _ = open_store(index, write=False)  # readers read it again
    store.conn.close()


def test_a_hurried_filing_into_a_schema_5_index_is_still_indexed_at_once(tmp_path: Path) -> None:
    """Only an index that cannot be written as it is makes a filing go to the log alone."""
    config = memory_at_schema(tmp_path, 5)

    _file_hurried(config, "a turn into schema five")

    assert schema_of(config.index_path) == 5
    assert indexed(config.index_path, "a turn into schema five") == 1


def test_a_hook_on_a_schema_4_index_does_not_file_again_what_the_index_holds(
    tmp_path: Path,
) -> None:
    """A resumed session's transcript starts with the parts archived before: filed once, as
    the old index says (it was filed in an earlier segment than the one written last)."""
    config = memory_at_schema(tmp_path, 4)
    (config.state_dir / "haystack.lock.last").unlink()  # no segment written last known
    segment = next((tmp_path / "notes" / "haystack").rglob("*.krd"))
    before = segment.read_bytes()

    ref, duplicate = _file_hurried(config, OLD_TURN)

    assert duplicate
    assert ref.startswith(segment.relative_to(tmp_path).as_posix() + "@")
    assert segment.read_bytes() == before


def test_a_hook_files_in_the_log_alone_while_another_process_holds_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background embed a filing starts upgrades an older index, under the lock every
    writer opens the index with: a hook that waited there for it (60 s) was cut off at its
    deadline, and filed nothing."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.setattr(memidx.index.open, "LOCK_WAIT", 90.0)  # a writer's (60): shown whole
    config = memory_at_schema(tmp_path)
    with file_lock(Path(f"{config.index_path}.lock")) as taken:  # an upgrade under way
        assert taken
        began = time.monotonic()
        _ref, duplicate = _file_hurried(config, "a turn while the index is upgraded")
        took = time.monotonic() - began

    assert not duplicate
    # a hook that waited for the upgrade waited the index lock's 60 s (90 here): a third of
    # that tells it on any load (SessionEnd's 1.4 s deadline is the hook runner's, not this
    # process's time; the filing alone takes ms: a wait of 90 s against 30 leaves load room)
    assert took < 30, took
    assert indexed(config.index_path, "while the index is upgraded") == 0
    by_sync(config)
    assert indexed(config.index_path, "while the index is upgraded") == 1


def test_the_mcp_file_turn_tool_leaves_the_upgrade_of_a_schema_4_index_to_another_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool call waited for the seconds a large index's upgrade takes; the client's timeout
    does not wait for ever either."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    config = memory_at_schema(tmp_path, 4)
    before = config.index_path.read_bytes()

    filed = answers.file_turn(config, {"text": "a fact filed by a tool call", "agent": "t"})

    assert filed["duplicate"] is False
    assert config.index_path.read_bytes() == before
    by_sync(config)
    assert indexed(config.index_path, "a fact filed by a tool call") == 1


@pytest.mark.parametrize("schema", [0, 1])
def test_a_hook_leaves_the_rebuild_of_an_index_older_than_any_upgrade_to_a_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schema: int
) -> None:
    """An index of schema 1 (or of no version) has no upgrade, only a rebuild: a hurried
    writer removed and made it anew inside an agent's hook (its vectors gone with it) where
    one of schema 2 to 4 was left to a writer with time for it."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    config = memory_at_schema(tmp_path)
    conn = sqlite3.connect(config.index_path, isolation_level=None)
    conn.execute(f"PRAGMA user_version = {schema}")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = config.index_path.read_bytes()

    _ref, duplicate = _file_hurried(config, "a turn into a schema one index")

    assert not duplicate
    assert config.index_path.read_bytes() == before  # not rebuilt in the hook
    by_sync(config)
    assert schema_of(config.index_path) == SCHEMA_VERSION
    assert indexed(config.index_path, "a turn into a schema one index") == 1
    assert indexed(config.index_path, OLD_TURN) == 1
