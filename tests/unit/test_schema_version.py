"""An index a newer memidx built (a schema version above this code's) is never rebuilt,
upgraded or written by this code: a process that outlived an upgrade (an agent's MCP server,
the recall server, a background embed) rebuilt it at its older schema, and every vector had
to be embedded again, for hours."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest

from memidx.agents import recall_server, recall_workers
from memidx.agents.recall import Recaller
from memidx.cli.status_output import agent_line
from memidx.config import Config, load_config
from memidx.errors import NewerIndex, NotMemidxIndex
from memidx.index.connection import transaction
from memidx.index.failures import HookFailure
from memidx.index.open import open_store
from memidx.index.schema import OUTDATED, connect_memory, schema_problem
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.index.store import Store
from memidx.mcp import answers, hand_over
from memidx.mcp.serve import Failed, Workers
from memidx.mcp.warm import WarmIndex

NEWER = SCHEMA_VERSION + 1
REFUSAL = f"was built by a newer memidx (schema {NEWER}, this one knows {SCHEMA_VERSION})"


def set_version(conn: sqlite3.Connection, version: int) -> None:
    conn.execute(f"PRAGMA user_version = {version}")


def vectors(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])


@pytest.fixture
def index(tmp_path: Path) -> Path:
    """An index of this schema, built, with one vector: what a newer memidx would keep."""
    path = tmp_path / ".memidx" / "index.sqlite"
    store, _ = open_store(path, write=True)
    with transaction(store.conn):
        store.conn.execute(
            "INSERT INTO vectors (text_hash, model, vector) VALUES ('h', 'm', x'00')"
        )
        store.conn.execute("INSERT INTO state VALUES ('build_completed', 'now')")
    store.conn.close()
    return path


def upgrade_elsewhere(path: Path) -> None:
    """What a newer memidx does to the index: its version bumped in place, in another process."""
    conn = sqlite3.connect(path, isolation_level=None)
    set_version(conn, NEWER)
    conn.close()


def test_a_write_transaction_into_a_newer_index_writes_nothing() -> None:
    conn = connect_memory()
    set_version(conn, NEWER)

    with pytest.raises(NewerIndex) as refused, transaction(conn):
        conn.execute("INSERT INTO state VALUES ('written', 'yes')")

    assert REFUSAL in str(refused.value) and "upgrade memidx or restart" in str(refused.value)
    assert conn.execute("SELECT value FROM state WHERE key = 'written'").fetchone() is None


@pytest.mark.parametrize(("version", "newer"), [(SCHEMA_VERSION - 1, False), (NEWER, True)])
def test_only_an_older_schema_is_a_problem_to_rebuild_for(version: int, newer: bool) -> None:
    conn = connect_memory()
    set_version(conn, version)

    if newer:
        with pytest.raises(NewerIndex):
            schema_problem(conn, None)
    else:
        assert (schema_problem(conn, None) or "").startswith(OUTDATED)


@pytest.mark.parametrize("write", [True, False])
def test_opening_a_newer_index_refuses_it_and_keeps_its_vectors(index: Path, write: bool) -> None:
    upgrade_elsewhere(index)

    with pytest.raises(NewerIndex) as refused:
        open_store(index, write=write)

    assert str(refused.value).startswith(f"the index at {index} {REFUSAL}")
    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == NEWER and vectors(conn) == 1
    conn.close()


def test_a_writer_opened_before_an_upgrade_writes_nothing_after_it(index: Path) -> None:
    """The old process's connection outlives the new code's in-place upgrade."""
    store, _ = open_store(index, write=True)
    try:
        upgrade_elsewhere(index)
        with pytest.raises(NewerIndex), transaction(store.conn):
            store.conn.execute("DELETE FROM vectors")
        assert vectors(store.conn) == 1
    finally:
        store.conn.close()


def test_another_programs_database_with_a_high_version_is_not_called_memidxs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "index.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(f"CREATE TABLE theirs (x); PRAGMA user_version = {NEWER};")
    conn.close()

    with pytest.raises(NotMemidxIndex, match="cannot prove it made this file"):
        open_store(path, write=False)


@pytest.fixture
def config(index: Path) -> Config:
    root = index.parent.parent
    return load_config(root, env={"MEMIDX_ROOT": str(root)})


def test_the_mcp_servers_warm_index_sees_an_upgrade_in_place(config: Config) -> None:
    warm = WarmIndex(config)
    try:
        warm.store()
        upgrade_elsewhere(config.index_path)
        for _ in range(2):  # and again at the next call: never answered from at last
            with pytest.raises(NewerIndex):
                warm.store()
    finally:
        warm.close()


@pytest.fixture
def workers(config: Config) -> Iterator[Workers]:
    workers = Workers(config)
    workers.hand_over.delay = 3600.0  # the test's process is not to be stopped
    workers.warming.result()  # the index opened before the upgrade, as in a running server
    yield workers
    workers.hand_over.cancel()
    workers.close()


def test_an_mcp_server_that_meets_a_newer_index_answers_traces_and_stops(
    workers: Workers, config: Config
) -> None:
    upgrade_elsewhere(config.index_path)

    with pytest.raises(Failed) as failed:
        asyncio.run(workers.read("search", workers.warm.store))

    assert str(failed.value).startswith("memidx: error: the index at ") and REFUSAL in str(
        failed.value
    )
    assert workers.hand_over.started is not None  # its stop is on its way
    trace = config.agent_hook_error_path.read_text()
    assert "mcp server" in trace and REFUSAL in trace and hand_over.NEXT in trace


def test_the_mcp_status_tool_on_a_newer_index_hands_over_as_search_does(
    workers: Workers, config: Config
) -> None:
    """`status` answered a newer memidx's index with its own object (the refusal among its
    problems), and this server, older than the index, went on serving."""
    upgrade_elsewhere(config.index_path)

    with pytest.raises(Failed) as failed:
        asyncio.run(workers.read("status", answers.status, workers.config))

    assert str(failed.value).startswith("memidx: error: the index at ") and REFUSAL in str(
        failed.value
    )
    assert str(failed.value).endswith("(upgrade memidx or restart this process)")
    assert workers.hand_over.started is not None  # its stop is on its way
    assert hand_over.NEXT in config.agent_hook_error_path.read_text()


def test_status_says_the_mcp_server_that_met_a_newer_index_stopped_not_failed_open() -> None:
    """Its trace is in the agent hooks' file, whose hooks fail open: the server does not."""
    said = "the index at x was built by a newer memidx: this server (pid 7) stops"
    server = agent_line(HookFailure("2026-12-04 22:00", hand_over.TRACE_NAME, said))
    hook = agent_line(HookFailure("2026-12-04 22:00", "claude UserPromptSubmit", "boom"))

    assert server.endswith(f"{said} (the server stopped)") and "failed open" not in server
    assert hook.endswith("boom (failed open)")


class _UpgradedUnder:
    def recall(self, prompt: str, seen: list[str]) -> object:
        raise NewerIndex("the index at x was built by a newer memidx", "upgrade memidx")


def test_the_recall_server_hands_over_when_the_index_is_newer() -> None:
    """A stale answer ends its loop: the hook starts a server of the code on disk."""
    recaller = cast(Recaller, _UpgradedUnder())
    answer = recall_workers.answer_for(recaller, b'{"prompt": "p"}', "k")
    assert answer == {"error": recall_server.STALE}


def test_an_ingest_upgraded_under_does_not_merge_the_newer_full_text_index(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The FTS 'optimize' after an ingest ran outside any transaction, past the guard."""
    from memidx.index import sync

    applied = sync._until_applied  # pyright: ignore[reportPrivateUsage]

    def then_upgraded(attempt: Callable[[], sync.SyncReport]) -> sync.SyncReport:
        report = applied(attempt)
        upgrade_elsewhere(config.index_path)  # between the last transaction and the optimize
        return report

    monkeypatch.setattr(sync, "_until_applied", then_upgraded)
    store, _ = open_store(config.index_path, write=True)
    try:
        with pytest.raises(NewerIndex, match="newer memidx"):
            sync.ingest(config, store, None)
    finally:
        store.conn.close()


def test_a_scrub_of_an_index_upgraded_under_it_drops_and_rewrites_nothing(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """drop_unused, the FTS 'optimize' and VACUUM ran outside any transaction: the vector no
    chunk holds, which the newer memidx keeps, was dropped."""
    from memidx.index import scrub

    opened = scrub.writable_index

    def then_upgraded(config: Config) -> Store:
        store = opened(config)
        upgrade_elsewhere(config.index_path)
        return store

    monkeypatch.setattr(scrub, "writable_index", then_upgraded)

    with pytest.raises(NewerIndex, match="newer memidx"):
        scrub.scrub_index(config)

    conn = sqlite3.connect(config.index_path)
    assert vectors(conn) == 1
    conn.close()
