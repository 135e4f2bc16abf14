"""A background embed killed mid-run is noticed: it leaves `.memidx/embed.running` (its pid),
`memidx status` says the vectors were cut off (`vectors.cut_off` in --json), and the next
agent session start restarts it; one that finishes or fails leaves no mark."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import memidx.embed.job
import memidx.memory.head_sync
from memidx.agents.actions import session_start
from memidx.agents.session import NO_SESSION, Where
from memidx.config import Config, load_config
from memidx.embed.job import embed_in_background, embed_index
from memidx.embed.running import cut_off, running_path
from memidx.frozen import replace
from memidx.index.open import mark_index_built
from memidx.index.store import VectorStore, open_store
from memidx.index.sync import ingest, note_source
from tests.helpers import FakeEmbedder, NotesRepo, clean_env

# `memidx embed --background` as the hooks start it, whose model is killed (SIGKILL: no
# handler, no finally runs) on its first batch, as the OOM killer or a reboot would.
KILLED_EMBED = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import memidx.embed.job as job
    from memidx.config import load_config

    class Killed:
        name, dim, fingerprint = "test/fake", 64, "fake-64"
        def embed(self, texts):
            os.kill(os.getpid(), signal.SIGKILL)

    job.document_embedder = lambda config: Killed()
    sys.exit(job.embed_in_background(load_config(Path(sys.argv[1]))))
    """
)


def _ingested(repo: NotesRepo) -> Config:
    repo.note("a.md", "Alpha", "alpha words to embed")
    repo.commit()
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    try:
        ingest(config, store, note_source(config))
        mark_index_built(config, store)
    finally:
        store.conn.close()
    return config


def _killed_mid_run(config: Config) -> int:
    """Run a background embed that is killed mid-run; its pid."""
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_EMBED, str(config.root)], env=clean_env()
    )
    assert child.wait(60) == -9  # killed, not exited
    return child.pid


def _counted_starts(monkeypatch: pytest.MonkeyPatch) -> list[Config]:
    """The background embeds started from now on (recorded, none run)."""
    started: list[Config] = []

    def start(config: Config) -> list[str]:
        started.append(config)
        return []

    monkeypatch.setattr(memidx.memory.head_sync, "start_background_embed", start)
    return started


def _fake_model(monkeypatch: pytest.MonkeyPatch, fake: FakeEmbedder) -> None:
    def loaded(config: Config) -> FakeEmbedder:
        return fake

    monkeypatch.setattr(memidx.embed.job, "document_embedder", loaded)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_background_embed_is_shown_cut_off_by_status(repo: NotesRepo) -> None:
    config = _ingested(repo)

    pid = _killed_mid_run(config)

    assert running_path(config.state_dir).read_text().split()[0] == str(pid)
    assert cut_off(config.state_dir) == pid
    status = repo.memidx("status", "--json").json()
    assert status["vectors"]["cut_off"] is True
    assert "background embedding was cut off" in repo.memidx("status").out


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_the_next_session_start_restarts_a_killed_background_embed(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _ingested(repo)
    _killed_mid_run(config)
    started: list[Config] = []

    def start(config: Config) -> list[str]:  # the detached `memidx embed --background`
        started.append(config)
        assert embed_in_background(config) == 0
        return []

    monkeypatch.setattr(memidx.memory.head_sync, "start_background_embed", start)
    _fake_model(monkeypatch, FakeEmbedder())
    with_embed = replace(load_config(repo.root), hook_embed=True)

    session_start(with_embed, Where("claude-code", NO_SESSION, str(repo.root)))

    assert len(started) == 1
    assert not running_path(config.state_dir).exists()  # the restarted one finished
    status = repo.memidx("status", "--json").json()
    assert status["vectors"]["cut_off"] is False
    store, _ = open_store(config.index_path, write=False)
    try:
        chunks, covered, _ = VectorStore(store.conn).counts("test/fake")
    finally:
        store.conn.close()
    assert covered == chunks > 0  # what the killed one left, embedded
    session_start(with_embed, Where("claude-code", NO_SESSION, str(repo.root)))
    assert len(started) == 1  # nothing to restart any more


def test_a_session_start_spares_a_background_embed_that_still_runs(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _ingested(repo)
    config.state_dir.mkdir(exist_ok=True)
    running_path(config.state_dir).write_text(f"{os.getpid()}\n")  # alive: this process
    started = _counted_starts(monkeypatch)

    with_embed = replace(load_config(repo.root), hook_embed=True)
    session_start(with_embed, Where("claude-code", NO_SESSION, str(repo.root)))

    assert started == []
    assert cut_off(config.state_dir) is None
    assert repo.memidx("status", "--json").json()["vectors"]["cut_off"] is False


def test_a_background_embed_that_finishes_or_fails_leaves_no_mark(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _ingested(repo)

    class Broken(FakeEmbedder):
        def embed(self, texts: object) -> object:
            raise RuntimeError("the model broke")

    _fake_model(monkeypatch, Broken())
    assert embed_in_background(config) == 1  # recorded in embed-error.log
    assert not running_path(config.state_dir).exists()
    _fake_model(monkeypatch, FakeEmbedder())
    assert embed_in_background(config) == 0
    assert not running_path(config.state_dir).exists()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_memidx_embed_clears_what_a_killed_background_embed_left(repo: NotesRepo) -> None:
    config = _ingested(repo)
    _killed_mid_run(config)
    store, _ = open_store(config.index_path, write=True)
    try:
        embed_index(config, store, embedder=FakeEmbedder())
    finally:
        store.conn.close()
    assert cut_off(config.state_dir) is None
    assert not running_path(config.state_dir).exists()


def test_a_mark_naming_no_pid_reads_as_cut_off(tmp_path: Path) -> None:
    running_path(tmp_path).write_text("")  # cut before its pid was written (never, atomically)
    assert cut_off(tmp_path) == 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_three_fruitless_cut_off_runs_stop_the_restarts_until_memidx_embed(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An embed the OOM killer ends at every start was restarted at every session start for
    ever: after three in a row that embedded nothing, status says so and names the command."""
    config = _ingested(repo)
    started = _counted_starts(monkeypatch)
    with_embed = replace(load_config(repo.root), hook_embed=True)
    for runs in (1, 2):
        _killed_mid_run(config)
        session_start(with_embed, Where("claude-code", NO_SESSION, str(repo.root)))
        assert len(started) == runs  # restarted
    _killed_mid_run(config)
    session_start(with_embed, Where("claude-code", NO_SESSION, str(repo.root)))
    assert len(started) == 2  # the third in a row: not restarted
    vectors = repo.memidx("status", "--json").json()["vectors"]
    assert vectors["cut_off"] is True
    assert (vectors["cut_off_runs"], vectors["restarts_stopped"]) == (3, True)
    said = " ".join(repo.memidx("status").out.split())
    assert "3 times in a row" in said and "run `memidx embed` by hand" in said

    store, _ = open_store(config.index_path, write=True)  # `memidx embed` by hand
    try:
        embed_index(config, store, embedder=FakeEmbedder())
    finally:
        store.conn.close()
    vectors = repo.memidx("status", "--json").json()["vectors"]
    assert (vectors["cut_off"], vectors["cut_off_runs"], vectors["restarts_stopped"]) == (
        False, 0, False
    )  # fmt: skip


def test_a_background_embed_that_commits_a_batch_sets_the_count_back(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut off after it embedded something, a run is no fruitless one: restarts go on."""
    for number in range(3):  # more chunks than one batch holds
        sections = "".join(f"## part {number}.{i}\n\nwords {number} {i}\n\n" for i in range(30))
        repo.write(f"notes/n{number}.md", f"# Note {number}\n\n{sections}")
    config = _ingested(repo)
    config.state_dir.mkdir(exist_ok=True)
    running_path(config.state_dir).write_text(f"{_dead_pid()}\n2\n")  # two fruitless so far
    counts: list[str] = []

    class Watching(FakeEmbedder):
        def embed(self, texts: Sequence[str]) -> Any:
            counts.append(running_path(config.state_dir).read_text().splitlines()[1])
            return super().embed(texts)

    _fake_model(monkeypatch, Watching())
    assert embed_in_background(config) == 0
    assert counts[0] == "3" and set(counts[1:]) == {"0"} and len(counts) > 1


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid
