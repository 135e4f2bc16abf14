"""The header of a vector matrix file, read without numpy: which index, and which generation of
its vectors, a file was made from (memidx.embed.matrix writes it). Beside the index, so that
what removes an index's files (memidx.index.ownership) reads it too."""

from __future__ import annotations

import json
import os
import stat
import struct
from collections.abc import Collection
from pathlib import Path

TYPE_CHECKING = False  # not typing's: the git hooks' sync reads these headers (import cost)
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"MXV1"


def matrix_files(index_path: Path) -> list[Path]:
    """The vector matrix files beside the index; none through a link (its folder, or a file,
    linked out of .memidx/ is not memidx's: a forget removed a person's files there)."""
    folder = Path(f"{index_path}-vectors")
    if folder.is_symlink() or not folder.is_dir():
        return []
    return sorted(path for path in folder.glob("*.mxv") if not path.is_symlink())


def read_header(path: Path) -> tuple[dict[str, Any], int] | None:
    """The header of the matrix file at `path` and its length in bytes (after the 8 bytes of
    magic and length); None when it is no matrix file memidx could read (cut short, of
    another format, not a regular file: a FIFO named `*.mxv` hung the open of a new index
    forever, its first read waiting for a writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO: no wait
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            prefix = stream.read(8)
            if len(prefix) != 8 or prefix[:4] != MAGIC:
                return None
            (length,) = struct.unpack("<I", prefix[4:])
            header: Any = json.loads(stream.read(length))
    except (OSError, ValueError, RecursionError):  # json recurses: `[` nested deep
        return None
    return (header, length) if _a_dict(header) else None


def _a_dict(value: object) -> bool:
    return isinstance(value, dict)


def made_at(path: Path) -> tuple[str, int] | None:
    """Which index (its id) and vector generation the file at `path` was made from; None when
    it is no matrix file memidx could read (cut short, of another format)."""
    read = read_header(path)
    if read is None:
        return None
    index, generation = read[0].get("index"), read[0].get("generation")
    return (index, generation) if isinstance(index, str) and isinstance(generation, int) else None


def stale_matrices(index_path: Path, index_id: str, generation: int) -> list[Path]:
    """The matrix files not made from the index `index_id` at `generation` or later (or
    unreadable): they may hold vectors the index dropped since. A deleted index's file counts
    whatever its generation: a rebuilt index counts again from one."""
    found: list[Path] = []
    for path in matrix_files(index_path):
        made = made_at(path)
        if made is None or made[0] != index_id or made[1] < generation:
            found.append(path)
    return found


def remove_foreign(index_path: Path, keep: Collection[str]) -> list[Path]:
    """Remove the matrix files beside the index at `index_path` that memidx made (their header
    says so) from an index whose id is not in `keep` (one deleted since at this path: search
    never reads them, they would only keep their disk space and vectors); returns them. A
    file whose header cannot be read is left: memidx cannot prove it wrote it."""
    removed: list[Path] = []
    for path in matrix_files(index_path):
        made = made_at(path)
        if made is not None and made[0] not in keep:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed
