"""What memidx moved aside in the git folder and left there: `.index.lock.memidx-<pid>`, a lock
memidx.git.judged_unlink moved aside to compare it before its unlink, or a dead copy of git's
index (`.memidx-copied-index-<pid>.memidx-<pid>`, or a late pull's put-back's
`.memidx-put-back-<pid>.memidx-<pid>`, and the `.lock` a git killed as it changed that copy
took beside it), left when the memidx that moved it was killed in between. Nothing looked
in the git folder for them: each stayed for good, unnamed.
The next memidx that takes git's index lock removes each whose memidx is gone (its pid, as
memidx.process_start judges it) and that holds nothing of anyone's (the token of a lock memidx
took, nothing at all, or a copy of the index memidx made); one holding what a git wrote (a
lock judged not memidx's, its memidx killed before it was put back) stays, and `memidx
status` names every one left."""

from __future__ import annotations

import os
from pathlib import Path

ASIDE = ".memidx-"  # `.<name>.memidx-<pid>[-<n>]` (memidx.git.judged_unlink.room_aside)
TOKEN_MOST = 128  # bytes: `memidx <pid> <object>`, the most a lock memidx took holds
# memidx.git.index_copy's names, and memidx.git.late_pull's put-back's copy
_COPIES = ("memidx-copied-index-", "memidx-edit-index-", "memidx-put-back-")


def sweep_asides(git_dir: Path) -> None:
    """Remove what a killed memidx moved aside in `git_dir` and left, that memidx gone, when it
    holds nothing of anyone's."""
    from memidx.git.judged_unlink import unlink_if_gone

    for path, pid, copy in _asides(git_dir):
        unlink_if_gone(path, pid, None if copy else _memidx_lock)


def asides_left(git_dir: Path) -> list[Path]:
    """What memidx moved aside in `git_dir` and left, that memidx gone (`memidx status`)."""
    from memidx.process_start import made_at, owner_gone

    left: list[Path] = []
    for path, pid, _ in _asides(git_dir):
        try:
            if owner_gone(pid, made_at(path)):
                left.append(path)
        except OSError:  # removed meanwhile
            continue
    return left


def git_written(path: Path) -> bool:
    """Whether the lock aside at `path` holds what a git wrote (not memidx's token, not empty):
    the index a git was committing when a memidx judging it was killed, never to be removed
    but put back as git's `index.lock`, which `memidx status` then judges (memidx.git.left_lock:
    a killed `git commit`'s, moved to git's index, keeps its commit)."""
    from memidx.portable import OPEN_AS_IS

    if _inner(path.name) != "index.lock":
        return False
    try:
        held = os.open(path, OPEN_AS_IS)
    except OSError:
        return False
    try:
        return not _memidx_lock(held)
    finally:
        os.close(held)


def _asides(git_dir: Path) -> list[tuple[Path, int, bool]]:
    """Each file memidx moved aside in `git_dir`: its path, the pid of the memidx that moved
    it, and whether it is a copy of git's index (else a lock)."""
    try:
        names = [entry.name for entry in os.scandir(git_dir) if entry.name.startswith(".")]
    except OSError:
        return []
    found: list[tuple[Path, int, bool]] = []
    for name in names:
        # a copy's `.lock`: the git that changed the copy (the put-back's `git reset`) killed
        # with the memidx shell whose pid the copy's name holds, a part of an index memidx made
        base = name.removesuffix(".lock")
        inner, pid = _inner(base), _moved(base)[1]
        lock = inner == "index.lock" and base == name
        if pid is not None and (lock or inner.startswith(_COPIES)):
            found.append((git_dir / name, pid, not lock))
    return sorted(found)


def _inner(name: str) -> str:
    """The name a file moved aside as `name` had first (moved aside again, by a memidx that
    judged it, it is named for each move)."""
    inner = _moved(name)[0]
    while inner.startswith(".") and _moved(inner)[1] is not None:
        inner = _moved(inner)[0]
    return inner


def _moved(name: str) -> tuple[str, int | None]:
    """The name a file `.<name>.memidx-<pid>[-<n>]` had and that pid, else (name, None)."""
    head, mark, tail = name.rpartition(ASIDE)
    pid, _, n = tail.partition("-")
    if not mark or not head.startswith(".") or not pid.isdigit() or not (n.isdigit() or not n):
        return name, None
    return head[1:], int(pid)


def _memidx_lock(held: int) -> bool:
    """Whether the lock held open at `held` is one memidx took (its token) or empty (the name
    made for it, never renamed over)."""
    try:
        data = os.read(held, TOKEN_MOST + 1)
    except OSError:
        return False
    said = data.split()
    return not data or (len(data) <= TOKEN_MOST and len(said) == 3 and said[0] == b"memidx")
