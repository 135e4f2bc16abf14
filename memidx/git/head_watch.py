"""HEAD's move seen in its ref's own file while `git update-ref --stdin` still runs: git moves
the ref, then runs the reference-transaction hook at `committed` (memidx's shim and any hook
it chains) and only then answers "commit: ok". memidx held `.git/index.lock` until that answer
(memidx.git.publish.move_head): the hook ran under it, ~20-30 ms of a ~30-45 ms hold at a load
of ~10 (a person's slow hook: all of its time), and a person's `git switch` or `git add` met
"index.lock: File exists" meanwhile. The file says the move as soon as git renamed it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from memidx.git import move_trace as trace
from memidx.git.head_name import REFTABLE_STUB
from memidx.git.refs import common_folder


def moved_file(git_dir: Path) -> Path | None:
    """The file that holds HEAD's commit once git moved it, read while git holds HEAD's lock
    (no `git switch` names another branch meanwhile): HEAD's own when detached, else its
    branch's loose ref (a linked work tree's in the main one's folder); None where git does
    not keep it so (reftable, a HEAD that is a link, a ref outside refs/heads)."""
    head = git_dir / "HEAD"
    try:
        text = "" if head.is_symlink() else head.read_text(encoding="utf-8").strip()
        common = common_folder(git_dir)
    except (OSError, ValueError):
        return None
    if not text.startswith("ref:"):
        return head if text else None
    ref = text.removeprefix("ref:").strip()
    if ref == REFTABLE_STUB or not ref.startswith("refs/heads/") or ".." in ref:
        return None
    return common / ref


def moved_first(answer: IO[str], moved: Path | None, new: str) -> bool:
    """After update-ref was told to commit: True once `moved` (moved_file) holds `new`, before
    git answers; False when git's answer is there first (to be read, as before), or where no
    file says it (None) or pipes cannot be waited on with select (not POSIX)."""
    if moved is None or os.name != "posix":
        return False
    import select

    while True:
        if holds(moved, new):
            trace.mark("moved")
            return True
        if select.select([answer], [], [], 0.001)[0]:  # nothing buffered: git said nothing yet
            return False


def holds(path: Path, new: str) -> bool:
    """Whether ref file `path` says commit `new` (a file being renamed over is read whole)."""
    try:
        with path.open("rb") as file:
            return file.read(100).strip() == new.encode()
    except OSError:
        return False
