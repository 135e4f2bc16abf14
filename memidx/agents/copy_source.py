"""A transcript's copy a hook left (memidx.agents.archive_left), read from disk a part at a
time (memidx.agents.transcript_cuts.Source) through the one descriptor its hash was checked
on: read whole, a 64 MiB copy took 222 MB to file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from memidx.drafts import open_regular

CHUNK = 1024 * 1024  # read at a time for the hash


class CopyUnread(Exception):
    """A copy that could not be read to its end (an I/O error, a copy that is no UTF-8)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path, self.why = path, why


class OnDisk:
    """A copy open for reading, as a Source; closed by `close` (or when it is collected)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._stream = os.fdopen(fd, "rb", buffering=0)

    def fileno(self) -> int:
        return self._stream.fileno()

    def size(self) -> int:
        return os.fstat(self._stream.fileno()).st_size

    def read(self, start: int, end: int) -> bytes:
        try:
            self._stream.seek(start)
            data = bytearray()
            while len(data) < end - start and (got := self._stream.read(end - start - len(data))):
                data += got
        except OSError as exc:
            raise CopyUnread(self.path, exc.strerror or str(exc)) from exc
        if len(data) < end - start:  # asked within its size: cut short in place meanwhile (the
            # cutter indexed past what it got, an IndexError out of the hook)
            raise CopyUnread(self.path, "it was cut short while it was read")
        return bytes(data)

    def digest(self) -> str:
        """The SHA-256 of the copy's bytes, read a megabyte at a time."""
        found, at, size = hashlib.sha256(), 0, self.size()
        while at < size and (data := self.read(at, min(size, at + CHUNK))):
            found.update(data)
            at += len(data)
        return found.hexdigest()

    def close(self) -> None:
        self._stream.close()


def open_copy(path: Path) -> OnDisk | None:
    """`path` open for reading as it is: None when it is gone or no regular file (a FIFO is
    not waited on, a link not followed); OSError for any other (EACCES, EIO, a folder)."""
    if (fd := open_regular(path)) is None:
        return None
    return OnDisk(path, fd)
