"""An index of schema 5 differs from schema 6 only in how its vectors table stores the same
columns: search, show, status and the MCP server read it as it is, writing nothing, until the
next writer upgrades it (refusing it until then broke every reader right after an upgrade of
memidx). An index of schema 4 or older is still refused (its words are folded otherwise)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memidx.agents import actions
from memidx.agents.exchange import Exchange
from memidx.agents.session import Where
from memidx.config import Config, load_config
from memidx.haystack.filing import file
from memidx.haystack.turn_input import parse_turn_json, turn_record
from memidx.index.store import Filters, open_store
from memidx.mcp.warm import WarmIndex
from tests.fake_model import use_fake_model
from tests.helpers import NotesRepo
from tests.unit.test_index_vectors_table import ROWS, SCHEMA_5_VECTORS

QUERY = ("search", "--json", "--mode", "hybrid", "words about pages")


@pytest.fixture
def memory(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    """Notes and a record, indexed and embedded (a fake model) at the current schema."""
    use_fake_model(monkeypatch)
    repo.note("a.md", "Alpha", "alpha words about vectors and tables")
    repo.note("b.md", "Beta", "beta words about pages and overflow")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    turn = '{"user": "which words about pages?", "assistant": "the beta note"}'
    file(load_config(repo.root), turn_record(parse_turn_json(turn)), None)
    assert repo.memidx("embed").code == 0
    return repo


def _index(repo: NotesRepo) -> Path:
    return repo.root / ".memidx" / "index.sqlite"


def _to_schema_5(path: Path) -> None:
    """The vectors table as memidx wrote it up to schema 5, the same rows in it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(SCHEMA_5_VECTORS)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _answers(repo: NotesRepo) -> tuple[object, ...]:
    found = repo.memidx(*QUERY)
    assert found.code == 0, found.err
    hits = found.json()["hits"]
    record = next(h["ref"] for h in hits if h["kind"] != "note")
    shown = repo.memidx("show", record)
    status = repo.memidx("status", "--json")
    assert shown.code == 0 and status.code == 0, (shown.err, status.out)
    state = status.json()
    del state["index"]["bytes"]  # schema 5 keeps the same vectors in more room
    return found.out, shown.out, state


def test_a_schema_5_index_answers_search_show_and_status_as_it_is_writing_nothing(
    memory: NotesRepo,
) -> None:
    path = _index(memory)
    expected = _answers(memory)
    _to_schema_5(path)
    before = path.read_bytes()

    assert _answers(memory) == expected

    assert path.read_bytes() == before
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5


def test_the_mcp_server_reads_a_schema_5_index_and_keeps_its_vectors_over_the_upgrade(
    memory: NotesRepo,
) -> None:
    """The warm server loaded the vectors from the schema 5 table; the upgrade copies them byte
    for byte and keeps the vector generation, so they are not loaded again."""
    path = _index(memory)
    _to_schema_5(path)
    config: Config = load_config(memory.root)
    warm = WarmIndex(config)
    try:
        first = warm.search("words about pages", Filters(), 10, "hybrid")
        assert first["engine"] == "hybrid" and first["warnings"] == [], first

        open_store(path, write=True)[0].conn.close()  # the next writer upgrades it

        assert warm.search("words about pages", Filters(), 10, "hybrid") == first
        assert (warm.reopened, warm.reloaded) == (0, 0)
    finally:
        warm.close()


def test_an_agent_hook_files_into_a_schema_5_index_as_it_is_and_sync_upgrades_it_later(
    memory: NotesRepo,
) -> None:
    """A hook has a deadline (SessionEnd 1.4 s) the upgrade outlasts on a large index (3-5 s at
    30,000 vectors): cut off mid-upgrade, it rolled back and the exchange was not filed. The
    hook writes schema 5 as it is; the next writer with time for it upgrades."""
    path = _index(memory)
    _to_schema_5(path)
    vectors = sqlite3.connect(path).execute(ROWS).fetchall()
    where = Where("claude-code", "session-5", str(memory.root))
    exchange = Exchange("which index keeps schema five?", ("the one a hook wrote",), closed=True)

    filed = actions.capture(load_config(memory.root), where, [exchange])

    assert [f.duplicate for f in filed] == [False]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
    found = "SELECT count(*) FROM documents WHERE body LIKE '%the one a hook wrote%'"
    assert conn.execute(found).fetchone()[0] == 1
    conn.close()

    synced = memory.memidx("sync")

    assert synced.code == 0, synced.err
    assert "from schema 5 to 6" in synced.err
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
    assert conn.execute(ROWS).fetchall() == vectors
    assert conn.execute(found).fetchone()[0] == 1
    conn.close()
