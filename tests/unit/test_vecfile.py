"""The vector matrix file: a current file is mapped, anything else is ignored."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from memidx.embed.job import embed_missing
from memidx.embed.matrix import (
    Matrix,
    Stamp,
    current_stamp,
    map_matrix,
    matrix_path,
    read_matrix,
    refresh_matrix,
    write_matrix,
)
from memidx.index.store import Store, VectorStore
from memidx.notes.chunks import chunk_document
from tests.helpers import FakeEmbedder

STAMP = Stamp("index-1", "m", "fp", 5)


def sample() -> Matrix:
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    return Matrix(np.array([7, 8, 9]), np.array([1, 1, 2]), vectors, 2)


def test_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "m.mxv"
    write_matrix(path, STAMP, sample())
    mapped = map_matrix(path, STAMP)
    assert mapped is not None
    assert mapped.chunk_ids.tolist() == [7, 8, 9] and mapped.doc_ids.tolist() == [1, 1, 2]
    assert np.array_equal(mapped.vectors, sample().vectors) and mapped.docs_without == 2


@pytest.mark.parametrize(
    "other",
    [
        Stamp("another-index", "m", "fp", 5),
        Stamp("index-1", "x", "fp", 5),
        Stamp("index-1", "m", "x", 5),
        Stamp("index-1", "m", "fp", 6),
    ],
)
def test_a_file_of_another_index_model_build_or_generation_is_ignored(
    tmp_path: Path, other: Stamp
) -> None:
    path = tmp_path / "m.mxv"
    write_matrix(path, STAMP, sample())
    assert map_matrix(path, other) is None


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_write_that_fails_leaves_no_partial_file(tmp_path: Path) -> None:
    import resource

    path = tmp_path / "vectors" / "m.mxv"
    write_matrix(path, STAMP, sample())
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, hard))  # as a full disk: writes fail
    try:
        with pytest.raises(OSError):  # Python ignores SIGXFSZ: the write fails with EFBIG
            write_matrix(path, Stamp("index-1", "m", "fp", 6), sample())
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert [p.name for p in path.parent.iterdir()] == ["m.mxv"]  # no leftover taking space
    assert map_matrix(path, STAMP) is not None  # the old file is intact


def _cut(data: bytes) -> bytes:
    return data[:-4]


def _junk(data: bytes) -> bytes:
    return b"junk" + data[4:]


def _empty(data: bytes) -> bytes:
    return b""


@pytest.mark.parametrize("damage", [_cut, _junk, _empty])
def test_a_damaged_file_is_ignored(tmp_path: Path, damage: Callable[[bytes], bytes]) -> None:
    path = tmp_path / "m.mxv"
    write_matrix(path, STAMP, sample())
    path.write_bytes(damage(path.read_bytes()))
    assert map_matrix(path, STAMP) is None


def test_any_chunk_or_vector_change_makes_the_file_stale(store: Store, tmp_path: Path) -> None:
    fake = FakeEmbedder()
    vectors = VectorStore(store.conn)
    doc_id, _ = store.upsert(_doc("notes/a.md"))
    vectors.replace_chunks(doc_id, chunk_document("A", "alpha"))
    embed_missing(store, fake)
    index = tmp_path / "index.sqlite"
    refreshed = refresh_matrix(store.conn, index, fake.name, fake.fingerprint, fake.dim)
    path = matrix_path(index, fake.name)
    assert map_matrix(path, current_stamp(store.conn, fake.name, fake.fingerprint)) is not None
    vectors.replace_chunks(doc_id, chunk_document("A", "changed"))
    assert map_matrix(path, current_stamp(store.conn, fake.name, fake.fingerprint)) is None
    fresh, _ = read_matrix(store.conn, fake.name, fake.dim)
    assert fresh.docs_without == 1 and len(refreshed.chunk_ids) == 1 and len(fresh.chunk_ids) == 0


def _doc(ref: str):
    from memidx.index.sync import note_document
    from memidx.notes.note import parse_note

    return note_document(parse_note(ref, b"# A\nalpha\n", 1 << 20), "blob")


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    import subprocess

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_writers_partial_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "m.mxv"
    dead = tmp_path / f".m.mxv.{_dead_pid()}.0a1b2c3d.partial"  # what a killed writer left
    live = tmp_path / f".m.mxv.{os.getpid()}.0a1b2c3d.partial"  # a writer at work
    other = tmp_path / ".notes.partial"  # names no writer: not the matrix writer's
    for partial in (dead, live, other):
        partial.write_bytes(b"half a matrix")

    write_matrix(path, STAMP, sample())

    assert not dead.exists()
    assert live.exists() and other.exists()
    assert map_matrix(path, STAMP) is not None
