"""The hashes that tell what changed are the standard ones, whichever module computes them."""

from __future__ import annotations

import hashlib

import pytest

from memidx.hashes import content_hash, git_blob_id, sha256_hex


@pytest.mark.parametrize(
    "data", [b"", b"a note\n", "Überlauf 日本".encode(), bytes(range(256)) * 4096]
)
def test_sha256_is_the_standard_digest(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("text", ["", "a note\n", "Überlauf 日本", "\ufeffBOM\r\n"])
def test_content_hash_is_the_sha256_of_the_utf8_text(text: str) -> None:
    assert content_hash(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    ("data", "blob"),
    [
        (b"", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"),  # `git hash-object` of an empty file
        (b"hello\n", "ce013625030ba8dba906f756967f9e9ca394464a"),
    ],
)
def test_blob_id_is_the_one_git_gives(data: bytes, blob: str) -> None:
    assert git_blob_id(data) == blob
