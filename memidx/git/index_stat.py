"""The stat of the files memidx's swap wrote, given to their entries in git's index while memidx
still holds `.git/index.lock` (memidx.git.index_swap).

The swap renames its copy of the index over git's, then writes the notes' files: their entries
have no stat (ctime 0: git reset made them before any file was there), and memidx gave it
after its follow (index_refresh.stat_given: a copy of the index and a `git add --refresh`,
~65 ms of each remember). Here the index memidx just renamed is read, each entry's stat
fields filled from its file as git fills them (fill_stat_data: ctime, mtime, dev, ino, uid,
gid, size, each 32 bits), its checksum written again, and the result renamed over the index,
still under memidx's lock: no git wrote it meanwhile. Only an index this reads whole is
changed: version 2 or 3, its checksum SHA-1 or SHA-256 and right, each entry found where
the walk of all entries puts it, no split index (a `link` extension); anything else is left
to stat_given, as before, and so is an index of more than MOST bytes: this runs under
index.lock, which fails each git of the person's at once ("index.lock: File exists"), and
its read, walk and checksums held it ~0.3 s for 200,000 entries (76 ms for 30,000; up to 1 s
at a load of ~20), where stat_given's copy holds it for a rename.

The index keeps its time (mtime): git trusts an entry's stat only when its file's mtime is
before the index's, and checks the others by content (racy git). A file a person edited, to
the same size, in the second git last wrote the index was seen so; the index written again
a second later, with that new time, hid the edit from `git status` and `git diff` (git,
writing an index, first smudges such entries: it compares their content). The files given
their stat here are so checked by content until git next writes the index, as is one edited
between its placing and its stat here."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from memidx.git.ready_lock import READY

FIXED = (
    40  # the stat fields at an entry's start: ctime, mtime (s, ns), dev, ino, mode, uid, gid, size
)
STAT = (0, 4, 8, 12, 16, 20, 28, 32, 36)  # offsets filled (mode's, at 24, stays)
SPLIT = b"link"  # a split index's extension: its entries elsewhere
MOST = 1 << 20  # bytes of an index read here, under index.lock (~12,000 entries: ~30 ms)


def stat_given_here(root: Path, git_dir: Path, paths: Sequence[str]) -> bool:
    """Fill the stat of `paths`' entries (each a file memidx wrote at that path) in git's
    index, which memidx holds; whether it did (False: left as it was)."""
    index = git_dir / "index"
    try:
        seen = index.stat()  # memidx holds index.lock: no git writes it meanwhile
        if seen.st_size > MOST:
            return False
        data = bytearray(index.read_bytes())
        hashed = _hash_size(data)
        places = _entries(data, hashed) if hashed else None
        if places is None or not all(os.fsencode(p) in places for p in paths):
            return False
        for path in paths:
            _fill(data, places[os.fsencode(path)], os.lstat(root / path))
        body = bytes(data[:-hashed])
        digest = hashlib.sha1 if hashed == 20 else hashlib.sha256
        written = git_dir / READY  # free again (renamed over the index); a kill leaves it
        # to the next prepare's discard, as a half-made copy
        written.write_bytes(body + digest(body).digest())
        os.utime(written, ns=(seen.st_atime_ns, seen.st_mtime_ns))  # racy git: see above
        written.replace(index)
    except (OSError, ValueError):
        return False
    return True


def _hash_size(data: bytearray) -> int:
    """20 (SHA-1) or 32 (SHA-256) when `data` is an index of version 2 or 3 whose checksum is
    right; 0 for any other (index.skipHash's zeros: not known which)."""
    if bytes(data[:4]) != b"DIRC" or int.from_bytes(data[4:8], "big") not in (2, 3):
        return 0
    for size, digest in ((20, hashlib.sha1), (32, hashlib.sha256)):
        if len(data) > 12 + size and digest(data[:-size]).digest() == bytes(data[-size:]):
            return size
    return 0


def _entries(data: bytearray, hashed: int) -> dict[bytes, int] | None:
    """Each entry's path and where it starts, walked as git lays them out; None when the walk
    does not end where the extensions (or the checksum) begin, or a split index's is there."""
    count, at, places = int.from_bytes(data[8:12], "big"), 12, dict[bytes, int]()
    end = len(data) - hashed
    for _ in range(count):
        flags_at = at + FIXED + hashed
        if flags_at + 2 > end:
            return None
        flags = int.from_bytes(data[flags_at : flags_at + 2], "big")
        name_at = flags_at + (4 if flags & 0x4000 else 2)
        stop = data.find(b"\0", name_at, end)
        if stop < 0:
            return None
        places[bytes(data[name_at:stop])] = at
        at += (stop - at + 8) // 8 * 8  # the name's NULs pad the entry to a multiple of 8
    while at + 8 <= end:  # the extensions: a signature and a size each
        if bytes(data[at : at + 4]) == SPLIT:
            return None
        at += 8 + int.from_bytes(data[at + 4 : at + 8], "big")
    return places if at == end else None


def _fill(data: bytearray, at: int, seen: os.stat_result) -> None:
    """The stat fields of the entry at `at` as git fills them from `seen`."""
    values = (
        int(seen.st_ctime), seen.st_ctime_ns % 1_000_000_000,
        int(seen.st_mtime), seen.st_mtime_ns % 1_000_000_000,
        seen.st_dev, seen.st_ino, seen.st_uid, seen.st_gid, seen.st_size,
    )  # fmt: skip
    for offset, value in zip(STAT, values, strict=True):
        data[at + offset : at + offset + 4] = (value & 0xFFFFFFFF).to_bytes(4, "big")
