"""The hashes that tell what changed: SHA-256 of note, chunk and record text (`content_hash`),
git's blob id of a file.

`hashlib` loads OpenSSL when imported, ~3 ms of every hook process's start. CPython also builds
SHA-1 and SHA-256 in (`_sha1`; `_sha256`, `_sha2` from 3.12), which give the same digests
without OpenSSL; hashlib remains the fallback for an interpreter built without them.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class _Hash(Protocol):
        def hexdigest(self) -> str: ...


def _constructor(name: str, modules: tuple[str, ...]) -> Callable[[bytes], _Hash]:
    for module_name in modules:
        try:
            module = __import__(module_name)
        except ImportError:
            continue
        constructor: Callable[[bytes], _Hash] = getattr(module, name)
        return constructor
    import hashlib

    fallback: Callable[[bytes], _Hash] = getattr(hashlib, name)
    return fallback


_sha256 = _constructor("sha256", ("_sha2", "_sha256"))
_sha1 = _constructor("sha1", ("_sha1",))


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of `data`."""
    return _sha256(data).hexdigest()


def content_hash(text: str) -> str:
    """The hash of a text as the index keys it: the hex SHA-256 of its UTF-8 bytes. A note's
    equals the SHA-256 of its file; a chunk's keys its cached vector."""
    return sha256_hex(text.encode("utf-8"))


def git_blob_id(data: bytes) -> str:
    """The id git gives a blob with this content."""
    return _sha1(b"blob %d\0" % len(data) + data).hexdigest()
