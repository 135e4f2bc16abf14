"""The vector matrix files of an index deleted since (`rm .memidx/index.sqlite`, its
`-vectors` folder kept): the rebuilt index counts its generations from one again, so a file of
the old index looked newer than any forget of the new one; it was never cleaned, kept the
vectors of what was forgotten after, and the folder grew with each model the old index had."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.embed.job import embed_index
from memidx.index.connection import connect_reader
from memidx.index.matrix_header import read_header, stale_matrices
from memidx.index.store import open_store
from memidx.index.sync import ingest, note_source
from memidx.index.vectors import VectorStore
from memidx.memory.forget_vectors import scrub_forgotten
from tests.helpers import FakeEmbedder, NotesRepo

SECRET = "The zebra passphrase is purple-otter-42."


def built(repo: NotesRepo, *models: str) -> Path:
    """The memory indexed and embedded with each model (the fake one); its vectors folder."""
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    try:
        ingest(config, store, note_source(config))
        for model in models:
            embed_index(config, store, embedder=FakeEmbedder(model))
    finally:
        store.conn.close()
    return Path(f"{config.index_path}-vectors")


def old_index_files(repo: NotesRepo, tmp_path: Path) -> tuple[Path, list[Path]]:
    """A memory embedded often (a high generation) with two models, then its index deleted;
    the vectors folder, and a copy of the old index's files."""
    repo.note("secret.md", "Secret", SECRET)
    repo.commit("secret")
    folder = built(repo, "test/fake", "test/other")
    for n in range(4):
        repo.note(f"n{n}.md", f"Note {n}", f"Caches evict by LRU, take {n}.")
        repo.commit(f"note {n}")
        built(repo, "test/fake", "test/other")
    kept = tmp_path / "old-vectors"
    shutil.copytree(folder, kept)
    load_config(repo.root).index_path.unlink()
    return folder, sorted(kept.glob("*.mxv"))


def left_by_an_older_rebuild(repo: NotesRepo, tmp_path: Path) -> Path:
    """The index rebuilt by `memidx sync`, the old index's files put back (as a memidx that did
    not remove them left them)."""
    folder, old = old_index_files(repo, tmp_path)
    done = repo.memidx("sync")
    assert done.code == 0, done.err
    for path in old:
        shutil.copy(path, folder / path.name)
    return folder


def index_ids(folder: Path) -> set[str]:
    return {str(read[0]["index"]) for p in folder.glob("*.mxv") if (read := read_header(p))}


def test_a_rebuilt_index_removes_the_deleted_ones_matrix_files(
    repo: NotesRepo, tmp_path: Path
) -> None:
    folder, old = old_index_files(repo, tmp_path)
    assert len(old) == 2

    done = repo.memidx("ingest")

    assert done.code == 0, done.err
    assert list(folder.glob("*.mxv")) == []


def test_an_embed_removes_matrix_files_another_index_made(repo: NotesRepo, tmp_path: Path) -> None:
    """Left by a memidx that did not remove them at the rebuild: the next embed does."""
    folder = left_by_an_older_rebuild(repo, tmp_path)

    built(repo, "test/fake")

    assert [p.name for p in folder.glob("*.mxv")] == ["test__fake.mxv"]
    assert len(index_ids(folder)) == 1


def test_a_forget_after_a_rebuild_leaves_no_file_of_the_old_index(
    repo: NotesRepo, tmp_path: Path
) -> None:
    folder = left_by_an_older_rebuild(repo, tmp_path)
    config = load_config(repo.root)
    with closing(connect_reader(config.index_path)) as conn:
        new_id = VectorStore(conn).index_id()
    assert len(stale_matrices(config.index_path, new_id, 1)) == 2  # whatever their generation

    done = repo.memidx("forget", "notes/secret.md")

    assert done.code == 0, done.err
    assert list(folder.glob("*.mxv")) == []  # the new index has no vectors of either model


def test_a_hook_s_scrub_reads_the_index_no_second_time(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A post-* hook in a clone that ever forgot had the index open, then scrub_forgotten
    opened it again for its id (0.02 -> 0.39 ms, medians of 200, for one matrix file); the
    caller gives the id and generation it read. Here a second connection fails: a reader that
    failed there removed every file, a fresh one too."""
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.commit("keep")
    folder = built(repo, "test/fake")
    config = load_config(repo.root)
    with closing(connect_reader(config.index_path)) as conn:
        made = (VectorStore(conn).index_id(), VectorStore(conn).forgotten_at() or 1)

    def refused(*_: object, **__: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr("memidx.index.connection.connect_reader", refused)
    scrub_forgotten(config, "x", None, made)

    assert [p.name for p in folder.glob("*.mxv")] == ["test__fake.mxv"]
