"""After `memidx forget` of notes the index equals a rebuild of the same memory (ingest, then
embed), row for row: documents, chunks, the full-text index and the vectors. Five forgets
left five vectors of the forgotten text that no chunk used."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import NoReturn

import pytest

from memidx.config import Config, load_config
from memidx.errors import MemidxError
from memidx.index import forgotten_notes as index_forgets
from memidx.index import open as index_open
from memidx.index.open import open_store
from memidx.memory import head_sync
from tests.helpers import NotesRepo
from tests.index_rows import index_rows, rebuilt_rows

SHARED = "Rotate the deploy key every quarter."


def vectors(root: Path) -> list[tuple[object, ...]]:
    """Every (text hash, model, vector) of the index."""
    path = root / ".memidx" / "index.sqlite"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT text_hash, model, vector FROM vectors ORDER BY 1, 2").fetchall()


def run(repo: NotesRepo, models_dir: Path, *args: str) -> None:
    done = repo.memidx_process(*args, MEMIDX_MODELS_DIR=str(models_dir))
    assert done.code == 0, done.err


def test_forgotten_notes_leave_the_index_as_a_rebuild_gives_it(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    for n in range(1, 7):
        repo.note(f"n{n}.md", f"Note {n}", f"Cache layer {n} evicts by LRU.\n\n## Key\n\n{SHARED}")
    repo.note("twin.md", "Note 5", f"Cache layer 5 evicts by LRU.\n\n## Key\n\n{SHARED}")
    repo.commit("notes")
    run(repo, models_dir, "ingest")
    run(repo, models_dir, "embed")

    for n in range(1, 6):
        run(repo, models_dir, "forget", f"notes/n{n}.md")

    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=False)
    try:
        rows = index_rows(store)
    finally:
        store.conn.close()
    assert rows == rebuilt_rows(config)
    kept = vectors(repo.root)
    assert len(kept) == 4  # note 6's two chunks, and those twin.md shares with note 5
    copy = tmp_path / "rebuilt"
    shutil.copytree(repo.root, copy, ignore=shutil.ignore_patterns(".memidx"))
    rebuilt = NotesRepo(copy, init=False)
    run(rebuilt, models_dir, "ingest")
    run(rebuilt, models_dir, "embed")
    assert kept == vectors(copy)  # before: 5 more, of the forgotten notes' own text


def test_a_forget_keeps_the_vectors_of_other_notes_deleted_by_git(
    tmp_path: Path, models_dir: Path
) -> None:
    """Only the forgotten note's vectors go: the cache of a note deleted by hand stays, so
    restoring it embeds nothing (README, Embeddings)."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("gone.md", "Gone for now", "A note deleted by hand, to be restored.")
    repo.note("secret.md", "Secret", "The text to forget.")
    repo.note("kept.md", "Kept", "A note that stays.")
    repo.commit("notes")
    run(repo, models_dir, "ingest")
    run(repo, models_dir, "embed")
    before = len(vectors(repo.root))
    repo.git("rm", "-q", "notes/gone.md")
    repo.commit("gone")
    run(repo, models_dir, "sync")

    run(repo, models_dir, "forget", "notes/secret.md")

    assert len(vectors(repo.root)) == before - 1  # secret.md's one chunk, no other


def test_a_forget_whose_vectors_cannot_be_dropped_is_a_forget_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the index once it followed the forget's commit, a follow that
    kept the vectors (one that compared the whole tree): the note is forgotten, committed, gone
    from search; the line said "error: ... (try again)", exit 1, and forgetting it again said
    there was no such note."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("secret.md", "Secret", "The text to forget.")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    with closing(sqlite3.connect(repo.root / ".memidx" / "index.sqlite")) as conn, conn:
        conn.execute(
            "INSERT INTO vectors (text_hash, model, vector) "
            "SELECT text_hash, 'm', x'00' FROM chunks"
        )

    def none_forgotten(*_args: object) -> list[str]:
        return []

    monkeypatch.setattr(index_forgets, "forgotten_notes", none_forgotten)
    follow = head_sync.follow_commit

    def held_after_the_follow(
        config: Config, say: Callable[[str], None] | None = None
    ) -> str | None:
        why = follow(config, say)

        def held(*args: object, **kwargs: object) -> NoReturn:
            raise MemidxError(f"{config.index_path} is locked by another process", "try again")

        monkeypatch.setattr(index_open, "writable_index", held)
        return why

    monkeypatch.setattr(head_sync, "follow_commit", held_after_the_follow)

    done = repo.memidx("forget", "notes/secret.md")

    assert done.code == 0, done.err
    assert "forgot notes/secret.md (deletion committed as " in done.out
    assert done.err == (
        "memidx: warning: notes/secret.md is forgotten, but the vectors of its text stay in the "
        f"index: {repo.root / '.memidx' / 'index.sqlite'} is locked by another process (a "
        "rebuild drops them: `make index`)\n"
    )
    assert repo.git("log", "-1", "--format=%s") == "memidx forget: notes/secret.md\n"
