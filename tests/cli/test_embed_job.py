"""The embed job: one embedder per clone, and no chunk left without a vector when its hook's
embedder found another one at work."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import memidx.embed.job
from memidx.config import Config, load_config
from memidx.embed.job import BATCH, embed_in_background, embed_index
from memidx.embed.matrix import current_stamp, map_matrix, matrix_path
from memidx.index.open import mark_index_built
from memidx.index.store import Store, VectorStore, open_store
from memidx.index.sync import ingest, note_source
from memidx.portable import file_lock
from tests.helpers import FakeEmbedder, NotesRepo, add_note, clean_env


class CommitWhileEmbedding(FakeEmbedder):
    """Embeds as FakeEmbedder; on its first batch a note arrives and its hook starts a
    background embed, as a commit made during `memidx embed` does."""

    def __init__(self, arrive: Callable[[], object] | None) -> None:
        super().__init__()
        self.arrive = arrive

    def embed(self, texts: Sequence[str]) -> Any:
        arrive, self.arrive = self.arrive, None
        if arrive is not None:
            arrive()
        return super().embed(texts)


def _one_note_ingested(repo: NotesRepo) -> tuple[Config, Store]:
    """A memory of one note, its index open for writing with the note's chunk to embed."""
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    ingest(config, store, note_source(config))
    return config, store


def test_a_note_committed_during_memidx_embed_gets_its_vectors(repo: NotesRepo) -> None:
    config, store = _one_note_ingested(repo)

    def commit_and_hook() -> None:
        add_note(store, "notes/late.md", "# Late\nzebra words written while embedding\n")
        assert embed_in_background(config) == 0  # leaves: `memidx embed` holds the lock

    try:
        embed_index(config, store, embedder=CommitWhileEmbedding(commit_and_hook))
        chunks, covered, _ = VectorStore(store.conn).counts("test/fake")
    finally:
        store.conn.close()
    assert covered == chunks == 2
    assert not (config.state_dir / "embed.pending").exists()


def _two_batches_ingested(repo: NotesRepo) -> Config:
    """A memory whose index holds two batches of chunks to embed, and its configuration."""
    for i in range(BATCH + 6):
        repo.note(f"n{i}.md", f"Note {i}", f"words of note {i}")
    repo.commit()
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    ingest(config, store, note_source(config))
    store.conn.close()
    return config


def test_a_background_embed_stops_when_its_clone_is_deleted(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _two_batches_ingested(repo)
    fake = CommitWhileEmbedding(lambda: shutil.rmtree(repo.root))  # the user deletes the clone

    def loaded(config: Config) -> FakeEmbedder:
        return fake

    monkeypatch.setattr(memidx.embed.job, "document_embedder", loaded)

    assert embed_in_background(config) == 0

    assert not repo.root.exists()  # neither its matrix file nor a trace brought it back
    assert len(fake.calls) == 1  # nor did it embed the rest for nobody


def test_a_background_embed_leaves_an_index_rebuilt_under_it_alone(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _two_batches_ingested(repo)
    path = matrix_path(config.index_path, "test/fake")

    def rebuild() -> None:  # `rm -rf .memidx && make index` while the embedder works
        shutil.rmtree(config.state_dir)
        fresh, _ = open_store(config.index_path, write=True)
        try:
            ingest(config, fresh, note_source(config))
            mark_index_built(config, fresh)
            embed_index(config, fresh, embedder=FakeEmbedder())
        finally:
            fresh.conn.close()

    fake = CommitWhileEmbedding(rebuild)

    def loaded(config: Config) -> FakeEmbedder:
        return fake

    monkeypatch.setattr(memidx.embed.job, "document_embedder", loaded)

    assert embed_in_background(config) == 0

    assert len(fake.calls) == 1  # it stopped embedding into the deleted index
    fresh, _ = open_store(config.index_path, write=False)
    try:
        stamp = current_stamp(fresh.conn, "test/fake", FakeEmbedder().fingerprint)
    finally:
        fresh.conn.close()
    assert map_matrix(path, stamp) is not None  # the rebuilt index's matrix file is its own


def test_a_background_embed_goes_on_to_an_index_rebuilt_under_it(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memidx ingest` replaces the index while the embedder works, and the embedder it starts
    finds this one at work and leaves: this one stopped at the replaced index, and the new
    index's chunks stayed without vectors until the next filing."""
    config = _two_batches_ingested(repo)

    def rebuild() -> None:  # a new index file in the old one's place, not embedded yet
        config.index_path.unlink()
        fresh, _ = open_store(config.index_path, write=True)
        try:
            ingest(config, fresh, note_source(config))
            mark_index_built(config, fresh)
        finally:
            fresh.conn.close()
        assert embed_in_background(config) == 0  # its builder's: leaves, this one holds the lock

    fake = CommitWhileEmbedding(rebuild)

    def loaded(config: Config) -> FakeEmbedder:
        return fake

    monkeypatch.setattr(memidx.embed.job, "document_embedder", loaded)

    assert embed_in_background(config) == 0

    fresh, _ = open_store(config.index_path, write=False)
    try:
        chunks, covered, _ = VectorStore(fresh.conn).counts("test/fake")
    finally:
        fresh.conn.close()
    assert covered == chunks == BATCH + 6
    assert not (config.state_dir / "embed.pending").exists()


def test_memidx_embed_says_when_it_waits_for_another_embedder(repo: NotesRepo) -> None:
    config, store = _one_note_ingested(repo)
    store.conn.close()
    waited = threading.Event()
    done: list[int] = []

    def run() -> None:  # `memidx embed`, on a thread of its own (sqlite: its own connection)
        mine, _ = open_store(config.index_path, write=True)
        try:
            done.append(
                embed_index(config, mine, embedder=FakeEmbedder(), waiting=waited.set).embedded
            )
        finally:
            mine.conn.close()

    with file_lock(config.state_dir / "embed.lock"):  # a background embedder at work
        worker = threading.Thread(target=run)
        worker.start()
        assert waited.wait(10)
        assert not done  # it waits its turn
    worker.join(10)
    assert done == [1]


def test_memidx_embed_says_nothing_when_no_one_holds_the_lock(repo: NotesRepo) -> None:
    config, store = _one_note_ingested(repo)
    waits: list[bool] = []
    try:
        embed_index(config, store, embedder=FakeEmbedder(), waiting=lambda: waits.append(True))
    finally:
        store.conn.close()
    assert not waits


def test_memidx_embed_off_a_terminal_says_it_waits_for_another_embed(
    repo: NotesRepo, models_dir: Path
) -> None:
    """A wait can be minutes: a log (CI, an agent) must show why nothing happens."""
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    env = {**clean_env(), "MEMIDX_ROOT": str(repo.root), "MEMIDX_MODELS_DIR": str(models_dir)}
    with file_lock(repo.root / ".memidx" / "embed.lock"):  # a background embedder at work
        embed = subprocess.Popen(
            [str(Path(sys.executable).parent / "memidx"), "embed"], cwd=repo.root, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        silent = threading.Timer(20, embed.kill)  # a memidx that says nothing waits for ever
        silent.start()
        try:
            assert embed.stderr is not None
            line = embed.stderr.readline()  # blocks until memidx says something, or dies
        finally:
            silent.cancel()
            embed.kill()
            embed.wait(30)
    assert "another embed is running in this clone; waiting for it" in line, line
