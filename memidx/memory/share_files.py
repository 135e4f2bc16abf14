"""The work tree's part of share's merge as files memidx writes and deletes itself, in the
instant it moves HEAD (memidx.git.index_swap), so that it holds `.git/index.lock` for a
rename, not for a git command.

share's merge moved HEAD and then ran `git read-tree -m -u OLD NEW` on a copy of git's index
while it held index.lock: a process start, the index read and written, the merge's files
checked out (~20-60 ms at a load of ~20), every `git add`, `commit`, `switch` or `stash` of
the person's refused meanwhile ("index.lock: File exists"). Now `read-tree -m OLD NEW` (no
`-u`: the work tree untouched) runs on a copy before the move, and in that instant memidx
checks that git's index is still the one copied, deletes each file the merge deletes or
changes while it still holds OLD's bytes, writes NEW's and renames the copy over the index.
Only plain files: a merge that changes a link, an executable, a submodule or a
`.gitattributes` (whose filters the files' bytes are read through), a path with a line
break, or more than MOST files, is followed by git's read-tree under the lock, as before; so
too when anything stands in its way at the move (git then decides: it refuses a file in its
way, and share undoes the merge)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memidx.config import Config

PLAIN = frozenset({"000000", "100644"})  # none there, or a regular file
# files read per merge (a git per file, before the move): more are followed by read-tree
MOST = 64
Plan = tuple[list[str], dict[str, bytes | None]]  # the files written, those deleted first


def merge_files(config: Config, old: str, new: str) -> Plan | None:
    """The paths the merge from `old` to `new` writes (NEW's bytes, where nothing is or once
    OLD's file is deleted) and those it deletes or changes, each with OLD's bytes as a
    checkout writes them; None when one is no plain file (git's read-tree follows then)."""
    listed = _git(config.root, "diff-tree", "-r", "-z", "--no-renames", old, new)
    if listed is None:
        return None
    fields = listed.decode("utf-8", "surrogateescape").split("\0")
    if len(fields) > 2 * MOST:
        return None
    written: list[str] = []
    gone: dict[str, bytes | None] = {}
    for meta, path in zip(fields[0:-1:2], fields[1::2], strict=True):
        modes = meta.lstrip(":").split()[:2]
        if len(modes) < 2 or not PLAIN.issuperset(modes) or "\n" in path:
            return None
        if path.rsplit("/", 1)[-1] == ".gitattributes":
            return None
        if modes[0] != "000000":
            gone[path] = _git(config.root, "cat-file", "--filters", f"{old}:{path}")
            if gone[path] is None:
                return None
        if modes[1] != "000000":
            written.append(path)
    return written, gone


def _git(root: Path, *args: str) -> bytes | None:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    return None if done.returncode else done.stdout
