"""The vector matrix files after a forget: written again without the forgotten vectors, or
removed where they cannot be written (a full disk); the next embed writes them."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import pytest

from memidx.config import load_config
from memidx.embed import matrix
from memidx.embed.job import embed_index
from memidx.index.store import open_store
from memidx.index.sync import ingest, note_source
from tests.helpers import FakeEmbedder, NotesRepo


def embedded(repo: NotesRepo) -> Path:
    """The memory indexed and embedded (the fake model); returns its matrix files' folder."""
    repo.note("secret.md", "Secret", "The zebra passphrase is purple-otter-42.")
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.commit("notes")
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    try:
        ingest(config, store, note_source(config))
        embed_index(config, store, embedder=FakeEmbedder())
    finally:
        store.conn.close()
    folder = Path(f"{config.index_path}-vectors")
    assert list(folder.glob("*.mxv"))
    return folder


def test_matrix_files_that_cannot_be_written_again_are_removed(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = embedded(repo)

    def full(*_args: object, **_kwargs: object) -> NoReturn:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matrix, "scrub_matrices", full)
    done = repo.memidx("forget", "notes/secret.md")

    assert done.code == 0, done.err
    assert list(folder.glob("*.mxv")) == []  # kept the forgotten note's vector until an embed


def test_a_matrix_file_that_stays_is_named_in_the_warning(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither written again nor removed: the warning named the index (or the folder), not
    the file that holds the forgotten vectors."""
    folder = embedded(repo)
    (kept,) = folder.glob("*.mxv")
    unlink = Path.unlink

    def full(*_args: object, **_kwargs: object) -> NoReturn:
        raise OSError(28, "No space left on device")

    def refused(path: Path, missing_ok: bool = False) -> None:
        if path.suffix == ".mxv":
            raise PermissionError(13, "Permission denied")
        unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(matrix, "scrub_matrices", full)
    monkeypatch.setattr(Path, "unlink", refused)
    done = repo.memidx("forget", "notes/secret.md")

    assert done.code == 0, done.err
    assert (
        f"memidx: warning: notes/secret.md is forgotten, but the vector file {kept} may hold the "
        "vectors of its text until the next embed: Permission denied (run `memidx embed`)\n"
    ) in done.err
