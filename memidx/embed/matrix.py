"""The vector matrix file: every chunk vector of one model in one memory-mappable file.

A derived cache next to the index, so a new search process maps the vectors in a few
milliseconds instead of reading tens of thousands of rows. It carries the index's vector
generation; when the index has changed since, readers ignore it and read SQLite instead.

Layout: b"MXV1", u32 header length, UTF-8 JSON header (model, dim, fingerprint, generation,
count, docs_without), zero padding to a multiple of 64, int64 chunk ids, int64 document ids,
float32 vectors (count x dim), all little-endian.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy.typing import NDArray

from memidx.drafts import remove_abandoned, replace_through
from memidx.embed.embedders import decode_matrix
from memidx.index.matrix_header import MAGIC, matrix_files, read_header
from memidx.index.store import VectorStore
from memidx.portable import process_alive, sync_folder


@dataclass(frozen=True, slots=True)
class Matrix:
    """Chunk vectors of one model as arrays."""

    chunk_ids: NDArray[np.int64]
    doc_ids: NDArray[np.int64]
    vectors: NDArray[np.float32]
    docs_without: int


def matrix_path(index_path: Path, model: str) -> Path:
    return Path(f"{index_path}-vectors") / (model.replace("/", "__") + ".mxv")


@dataclass(frozen=True, slots=True)
class Stamp:
    """Which index, model build and generation a matrix file was made from."""

    index_id: str
    model: str
    fingerprint: str
    generation: int


def current_stamp(conn: sqlite3.Connection, model: str, fingerprint: str) -> Stamp:
    store = VectorStore(conn)
    return Stamp(store.index_id(), model, fingerprint, store.generation())


def read_matrix(conn: sqlite3.Connection, model: str, dim: int) -> tuple[Matrix, int]:
    """The vectors of `model` from SQLite, and the generation they belong to."""
    store = VectorStore(conn)
    in_transaction = conn.in_transaction
    if not in_transaction:
        conn.execute("BEGIN")
    try:
        generation = store.generation()
        loaded = store.load(model)
    finally:
        if not in_transaction:
            conn.execute("COMMIT")
    matrix = Matrix(
        np.asarray(loaded.chunk_ids, dtype=np.int64),
        np.asarray(loaded.doc_ids, dtype=np.int64),
        decode_matrix(loaded.blobs, dim),
        loaded.docs_without,
    )
    return matrix, generation


def write_matrix(path: Path, stamp: Stamp, matrix: Matrix, *, durable: bool = True) -> None:
    """Write the file atomically (a reader sees the old file or the new one); a write that
    fails (a full disk) leaves no partial file behind to keep the space. `durable` (the fsync
    setting): its bytes are synced before the rename and its folder after, so a power loss
    leaves the old file or the new one, never a new name over bytes that never reached disk."""
    count, dim = matrix.vectors.shape
    header = json.dumps(
        {
            "index": stamp.index_id,
            "model": stamp.model,
            "dim": dim,
            "fingerprint": stamp.fingerprint,
            "generation": stamp.generation,
            "count": count,
            "docs_without": matrix.docs_without,
        }
    ).encode()
    head = MAGIC + struct.pack("<I", len(header)) + header
    head += b"\0" * (-len(head) % 64)
    made = not path.parent.is_dir()
    path.parent.mkdir(exist_ok=True)  # beside the index, never its folder: it may be gone
    if made and durable:
        sync_folder(path.parent.parent)
    remove_dead_partials(path.parent)
    partial = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.partial")

    def write(out: BinaryIO) -> None:
        out.write(head)
        out.write(np.ascontiguousarray(matrix.chunk_ids, dtype="<i8").tobytes())
        out.write(np.ascontiguousarray(matrix.doc_ids, dtype="<i8").tobytes())
        out.write(np.ascontiguousarray(matrix.vectors, dtype="<f4").tobytes())

    replace_through(path, partial, write, durable=durable)


def remove_dead_partials(folder: Path) -> list[Path]:
    """Remove the half-written matrix files of writers that were killed (`.<file>.<pid>.<random>
    .partial` whose pid is gone): a matrix is ~1.5 KB a chunk, so each one kept that much disk.
    A live writer's is left alone, and an older memidx's `<model>.partial` (no pid) is removed
    once nothing has written it for an hour; returns what was removed."""
    removed = [
        old for old in folder.glob("*.partial") if old.name[0] != "." and remove_abandoned(old)
    ]
    for partial in folder.glob(".*.partial"):
        pid = partial_pid(partial.name)
        if pid is not None and not process_alive(pid):
            with suppress(FileNotFoundError):  # another writer removed it first
                partial.unlink()
                removed.append(partial)
    return removed


def partial_pid(name: str) -> int | None:
    """The pid a matrix writer's partial file name carries; None for any other name."""
    parts = name.removesuffix(".partial").rsplit(".", 2)
    if not name.endswith(".partial") or len(parts) != 3 or not parts[1].isdigit():
        return None
    return int(parts[1])


def map_matrix(path: Path, stamp: Stamp) -> Matrix | None:
    """The mapped file if it was made from this index, model build and generation; else None."""
    read = read_header(path)
    if read is None:
        return None
    header, length = read
    try:
        size = path.stat().st_size
    except OSError:
        return None
    made = (header.get("index"), header.get("model"), header.get("fingerprint"),
            header.get("generation"))  # fmt: skip
    if made != (stamp.index_id, stamp.model, stamp.fingerprint, stamp.generation):
        return None
    count, dim = int(header["count"]), int(header["dim"])
    offset = 8 + length + (-(8 + length) % 64)
    if size != offset + count * (16 + 4 * dim):
        return None
    if count == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Matrix(empty, empty, np.zeros((0, dim), np.float32), int(header["docs_without"]))
    ids = np.memmap(path, dtype="<i8", mode="r", offset=offset, shape=(2, count))
    vectors = np.memmap(path, dtype="<f4", mode="r", offset=offset + 16 * count, shape=(count, dim))
    return Matrix(
        np.asarray(ids[0]), np.asarray(ids[1]), np.asarray(vectors), int(header["docs_without"])
    )


def refresh_matrix(
    conn: sqlite3.Connection,
    index_path: Path,
    model: str,
    fingerprint: str,
    dim: int,
    *,
    durable: bool = True,
) -> Matrix:
    """Make the file current for the index as it is now (`durable`: write_matrix's); returns
    the matrix. When the vectors changed between its read and its write (a forget that
    rewrote the file meanwhile), the file it put in place may hold the forgotten vectors over
    the forget's: it is written again, at most three times in all."""
    path = matrix_path(index_path, model)
    current = map_matrix(path, current_stamp(conn, model, fingerprint))
    if current is not None:
        return current
    matrix, generation = _write_current(conn, path, model, fingerprint, dim, durable=durable)
    for _ in range(2):
        if VectorStore(conn).generation() == generation:
            break
        matrix, generation = _write_current(conn, path, model, fingerprint, dim, durable=durable)
    return matrix


def _write_current(
    conn: sqlite3.Connection, path: Path, model: str, fingerprint: str, dim: int, *, durable: bool
) -> tuple[Matrix, int]:
    """The matrix read from the index, written to `path`; and the generation it was read at."""
    matrix, generation = read_matrix(conn, model, dim)
    stamp = Stamp(VectorStore(conn).index_id(), model, fingerprint, generation)
    write_matrix(path, stamp, matrix, durable=durable)
    return matrix, generation


def scrub_matrices(conn: sqlite3.Connection, index_path: Path, *, durable: bool) -> None:
    """After a purge: each model's matrix file written again from the index as it is now (the
    old one held the vectors of what was forgotten), a file of a model the index no longer
    holds removed. A derived cache: the next search reads the index without it."""
    files = matrix_files(index_path)  # none through a link out of .memidx/: not memidx's
    if not files:
        return
    kept: set[Path] = set()
    for model, size, fingerprint in conn.execute("SELECT model, dim, fingerprint FROM models"):
        name = str(model)
        path = matrix_path(index_path, name)
        if path in files:
            refresh_matrix(conn, index_path, name, str(fingerprint), int(size), durable=durable)
            kept.add(path)
    for path in files:
        if path not in kept:
            path.unlink(missing_ok=True)
