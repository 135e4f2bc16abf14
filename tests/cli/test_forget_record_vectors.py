"""After `memidx forget` of a record (a turn) the index equals a rebuild of the same memory
(ingest, then embed), row for row and vector for vector, on the clone that forgot it and on
one the tombstone reaches by a pull. A forgotten turn's vectors stayed: the embedding of the
forgotten words was still in the index, which a rebuild never has."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import NoReturn

import pytest

from memidx.config import load_config
from memidx.haystack import indexing
from memidx.index.open import open_store
from tests.cli.test_forget import clones
from tests.cli.test_forget_vectors import vectors
from tests.helpers import NotesRepo
from tests.index_rows import index_rows, rebuilt_rows

SECRET = "The zebra passphrase is purple-otter-42."


def run(repo: NotesRepo, models_dir: Path, *args: str, stdin: str | None = None) -> str:
    """Run memidx with the packaged model and no embedder started behind the test's back."""
    env = {"MEMIDX_MODELS_DIR": str(models_dir), "MEMIDX_HOOK_EMBED": "0"}
    done = repo.memidx_process(*args, stdin=stdin, **env)
    assert done.code == 0, done.err
    return done.out.strip()


def turn(repo: NotesRepo, models_dir: Path, user: str, assistant: str) -> str:
    said = json.dumps({"user": user, "assistant": assistant, "agent": "test", "session": "s1"})
    return run(repo, models_dir, "file-turn", stdin=said)


def assert_as_rebuilt(repo: NotesRepo, models_dir: Path, tmp_path: Path) -> None:
    """The index's rows are a rebuild's, and its vectors those a rebuild embeds."""
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=False)
    try:
        rows = index_rows(store)
    finally:
        store.conn.close()
    assert rows == rebuilt_rows(config)
    copy = tmp_path / f"rebuilt-{repo.root.name}"
    shutil.copytree(repo.root, copy, ignore=shutil.ignore_patterns(".memidx"))
    rebuilt = NotesRepo(copy, init=False)
    run(rebuilt, models_dir, "ingest")
    run(rebuilt, models_dir, "embed")
    assert vectors(repo.root) == vectors(copy)


def matrices(root: Path) -> bytes:
    """The bytes of the vector matrix files beside the index."""
    folder = root / ".memidx" / "index.sqlite-vectors"
    return b"".join(path.read_bytes() for path in sorted(folder.glob("*.mxv")))


def blobs(root: Path) -> list[bytes]:
    """The vectors of the index, as stored."""
    return [row[2] for row in vectors(root) if isinstance(row[2], bytes)]


def embedded_on_both(tmp_path: Path, models_dir: Path) -> tuple[NotesRepo, NotesRepo, list[bytes]]:
    """Two clones of one remote; the first commits a note of SECRET and pushes it, the second
    pulls, indexes and embeds it: the clones and the second's vectors then."""
    one, two = clones(tmp_path)
    one.note("secret.md", "Secret", SECRET)
    one.commit("secret")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q")
    run(two, models_dir, "ingest")
    run(two, models_dir, "embed")
    return one, two, blobs(two.root)


def test_a_forgotten_turn_leaves_the_index_as_a_rebuild_gives_it(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.commit("notes")
    run(repo, models_dir, "ingest")
    gone = turn(repo, models_dir, "what is the zebra passphrase", SECRET)
    turn(repo, models_dir, "how do caches evict", "They evict by LRU.")
    run(repo, models_dir, "embed")
    before = blobs(repo.root)

    run(repo, models_dir, "forget", gone)

    after = blobs(repo.root)
    assert len(after) == len(before) - 1  # was before: the forgotten turn's stayed
    (forgotten,) = [blob for blob in before if blob not in after]
    assert forgotten not in matrices(repo.root)  # the matrix file kept it until an embed
    assert all(blob in matrices(repo.root) for blob in after)  # written again, not removed
    assert_as_rebuilt(repo, models_dir, tmp_path)


def test_a_forgotten_note_leaves_no_vector_in_the_matrix_file(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.note("secret.md", "Secret", SECRET)
    repo.commit("notes")
    run(repo, models_dir, "ingest")
    run(repo, models_dir, "embed")
    before = blobs(repo.root)
    assert all(blob in matrices(repo.root) for blob in before)

    run(repo, models_dir, "forget", "notes/secret.md")

    after = blobs(repo.root)
    (forgotten,) = [blob for blob in before if blob not in after]
    assert forgotten not in matrices(repo.root)
    assert all(blob in matrices(repo.root) for blob in after)


def test_a_turn_forgotten_on_another_clone_leaves_its_vectors_there_too(
    tmp_path: Path, models_dir: Path
) -> None:
    """The tombstone arrives by a pull, in a segment of its own (a committed segment is
    never written again), and the sync that reads it drops the turn and its vectors."""
    one, two = clones(tmp_path)
    gone = turn(one, models_dir, "what is the zebra passphrase", SECRET)
    run(one, models_dir, "share")
    two.git("pull", "-q")
    run(two, models_dir, "sync")
    run(two, models_dir, "embed")
    before = len(vectors(two.root))

    run(one, models_dir, "forget", gone)
    run(one, models_dir, "share")
    two.git("pull", "-q")
    run(two, models_dir, "sync")

    assert len(vectors(two.root)) == before - 1
    assert_as_rebuilt(two, models_dir, tmp_path)


def test_a_tombstone_read_with_its_turn_drops_the_turns_vectors(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forget's filing appended the tombstone and could not index it (a full disk): the
    next sync reads the turn and its tombstone in one segment, and dropped the turn's row as
    one no longer wanted before it read the tombstone, the turn's vectors left behind."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.commit("notes")
    run(repo, models_dir, "ingest")
    gone = turn(repo, models_dir, "what is the zebra passphrase", SECRET)
    run(repo, models_dir, "embed")
    before = len(vectors(repo.root))

    def full(*_args: object) -> NoReturn:
        raise sqlite3.OperationalError("database or disk is full")

    with monkeypatch.context() as patched:
        patched.setattr(indexing, "forget_in_index", full)
        failed = repo.memidx("forget", gone)
    assert failed.code == 1 and "database or disk is full" in failed.err, failed.err
    assert len(vectors(repo.root)) == before  # in the log alone: the index has the turn yet
    run(repo, models_dir, "sync")

    assert len(vectors(repo.root)) == before - 1
    assert_as_rebuilt(repo, models_dir, tmp_path)
