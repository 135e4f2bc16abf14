"""A vector matrix file's header (memidx/index/matrix_header.py): a file memidx cannot read,
cut short, of another format or a header that is no JSON object, is none (None), never a
traceback for the search or the forget that looks at it."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from memidx.index.matrix_header import MAGIC, made_at, read_header


def matrix_file(tmp_path: Path, header: bytes) -> Path:
    path = tmp_path / "vectors.mxv"
    path.write_bytes(MAGIC + struct.pack("<I", len(header)) + header)
    return path


@pytest.mark.parametrize(
    "header",
    [b"[]", b'"text"', b"\xff\xfe", b"{", b"[" * 100_000],  # the last: json recursed out
)
def test_a_header_memidx_cannot_read_is_none(tmp_path: Path, header: bytes) -> None:
    path = matrix_file(tmp_path, header)
    assert read_header(path) is None
    assert made_at(path) is None


def test_a_header_s_index_and_generation_are_read(tmp_path: Path) -> None:
    path = matrix_file(tmp_path, b'{"index": "e3b5ac", "generation": 3}')
    assert read_header(path) == ({"index": "e3b5ac", "generation": 3}, 36)
    assert made_at(path) == ("e3b5ac", 3)
    assert made_at(matrix_file(tmp_path, b'{"generation": 3}')) is None  # no index named
