"""The vector matrix files beside an index are removed by what their headers say, never by the
time or the name: an embed whose index was deleted and made anew while it wrote its matrix
removed the new index's files (a cache, rebuilt at a cost) as a deleted index's and kept its
own stale one; and a new index removed every `*.mxv` in its folder, another program's too
(memidx/index/ownership.py, memidx/embed/job.py)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memidx.config import Config, load_config
from memidx.embed import job
from memidx.embed.job import embed_index, embed_missing
from memidx.embed.matrix import refresh_matrix
from memidx.index.matrix_header import made_at
from memidx.index.store import open_store
from memidx.index.sync import ingest, note_source
from memidx.index.vectors import VectorStore
from tests.helpers import MEMIDX_BIN, FakeEmbedder, NotesRepo, clean_env

FOREIGN = b"not a matrix of memidx's: another program's file\n"


def made_anew(config: Config, model: str) -> str:
    """The index deleted and made anew at its path, indexed and its matrix file for `model`
    written (as a `memidx ingest` and `memidx embed` elsewhere would); its id."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{config.index_path}{suffix}").unlink(missing_ok=True)
    store, _ = open_store(config.index_path, write=True)
    try:
        ingest(config, store, note_source(config))
        embedder = FakeEmbedder(model)
        embed_missing(store, embedder)
        refresh_matrix(store.conn, config.index_path, model, embedder.fingerprint, embedder.dim)
        return VectorStore(store.conn).index_id()
    finally:
        store.conn.close()


def test_an_embed_whose_index_was_made_anew_meanwhile_keeps_the_new_ones_matrix(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("caches.md", "Caches", "Caches evict by LRU when they are full.")
    repo.commit("notes")
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    ingest(config, store, note_source(config))
    refresh = job.refresh_matrix
    new: list[str] = []

    def replaced_while_writing(*args: Any, **kwargs: Any) -> object:
        new.append(made_anew(config, "test/other"))  # after the embed's last look
        return refresh(*args, **kwargs)

    monkeypatch.setattr(job, "refresh_matrix", replaced_while_writing)
    try:
        embed_index(config, store, embedder=FakeEmbedder("test/fake"))
    finally:
        store.conn.close()

    folder = Path(f"{config.index_path}-vectors")
    left = {path.name: made_at(path) for path in folder.glob("*.mxv")}
    assert [made[0] for made in left.values() if made] == new, left  # the new index's alone


@pytest.mark.parametrize("fresh", [True, False], ids=["new index", "outdated index removed"])
def test_a_file_of_another_program_in_the_vectors_folder_is_left(
    repo: NotesRepo, fresh: bool
) -> None:
    repo.note("caches.md", "Caches", "Caches evict by LRU when they are full.")
    repo.commit("notes")
    config = load_config(repo.root)
    made_anew(config, "test/fake")  # a matrix memidx made, of an index deleted next
    folder = Path(f"{config.index_path}-vectors")
    theirs = folder / "theirs.mxv"
    theirs.write_bytes(FOREIGN)
    config.index_path.unlink()
    if fresh:
        store, _ = open_store(config.index_path, write=True)  # a new index there
        store.conn.close()
    else:
        from memidx.index.ownership import remove_index

        remove_index(config.index_path)

    assert sorted(path.name for path in folder.glob("*.mxv")) == ["theirs.mxv"]
    assert theirs.read_bytes() == FOREIGN


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_named_like_a_matrix_file_does_not_hang_a_new_index(repo: NotesRepo) -> None:
    """A FIFO `*.mxv` in the vectors folder: its header was read by a blocking open and read,
    waiting for a writer, so `memidx ingest` of a new index never ended (the old removal
    unlinked every `*.mxv` unread). Now it is no matrix file of memidx's: left, not waited on."""
    repo.note("caches.md", "Caches", "Caches evict by LRU when they are full.")
    repo.commit("notes")
    folder = Path(f"{load_config(repo.root).index_path}-vectors")
    folder.mkdir(parents=True)
    os.mkfifo(folder / "theirs.mxv")
    argv = [str(MEMIDX_BIN), "-C", str(repo.root), "ingest"]
    try:
        done = subprocess.run(  # killed at the timeout by subprocess.run
            argv, cwd=repo.root, env=clean_env(), capture_output=True, text=True, timeout=60,
            check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("memidx ingest hung on a FIFO named theirs.mxv in the vectors folder")
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO((folder / "theirs.mxv").lstat().st_mode)  # not memidx's: left
