"""Which git processes memidx.git.publish.committers counts as this clone's, and which of
them only read: a git run in a repository of its own inside the clone is not the clone's, and
a `git stash list` or `git stash show` in a person's pager writes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def only_looks(command: str, words: Sequence[str]) -> bool:
    """Whether a `git stash list` or `git stash show` (in the person's pager for as long as
    they read: every note beside it was left pending) only reads."""
    after: Sequence[str] = words[words.index(command) + 1 :] if command in words else []
    return command == "stash" and after[:1] in (["list"], ["show"])


def in_work_tree(cwd: Path, root: Path) -> bool:
    """Whether `cwd` is in the work tree `root` (not in a repository of its own inside it)."""
    return (cwd == root or root in cwd.parents) and not _another_repository(cwd, root)


def _another_repository(cwd: Path, root: Path) -> bool:
    """Whether `cwd`, a folder under the clone, is in a repository of its own (a clone kept in
    it, a submodule) before the clone's top: its commits were waited for as the clone's."""
    folder = cwd
    for _ in range(len(cwd.parts)):  # up to the clone's top, never past it
        if folder == root or root not in folder.parents:
            return False
        if (folder / ".git").exists():
            return True
        folder = folder.parent
    return False
