"""Telling a git folder with no work tree (a bare repository: a remote, a `git clone --bare`)
from a memory, by its files alone: memidx reads a folder outside git as a memory of no notes,
and would index a bare repository as an empty one and write its `.memidx/` into it."""

from __future__ import annotations

import re
from pathlib import Path

from memidx.errors import ConfigError

# What git's `is_git_directory` asks of a folder: a HEAD naming a ref or a commit, and the
# objects/ and refs/ folders.
_HEAD = re.compile(r"ref: refs/\S+\n?|[0-9a-f]{40}\n?|[0-9a-f]{64}\n?")


def is_git_folder(folder: Path) -> bool:
    """Whether `folder` is a git folder (HEAD, objects/, refs/): a bare repository, or the
    folder a `.git` file or GIT_DIR names."""
    head = folder / "HEAD"
    if not ((folder / "objects").is_dir() and (folder / "refs").is_dir()):
        return False
    try:
        if head.is_symlink():  # git's oldest HEAD: a link into refs/
            return str(head.readlink()).startswith("refs/")
        return _HEAD.fullmatch(head.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:  # no HEAD, or not a file
        return False


def bare_repository_around(start: Path) -> Path | None:
    """The git folder with no work tree that `start` is in (or is), None when there is none: a
    folder holding a `.git` is a work tree and ends the search, and the `.git` folder of a work
    tree is no bare repository (a folder in it answers for the work tree around it)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return None
        if folder.name != ".git" and is_git_folder(folder):
            return folder
    return None


def refuse_bare(folder: Path, named: str, remedy: str) -> None:
    """ConfigError when `folder` is in a bare repository: `named` says who named it (-C,
    MEMIDX_ROOT), `remedy` how to name a clone's work tree instead."""
    bare = bare_repository_around(folder)
    if bare is not None:
        raise ConfigError(
            f"{named}, {bare_words(folder, bare)}: it has no work tree of notes to index",
            f"{remedy} a clone's work tree (git clone {bare} DIR)",
        )


def bare_words(folder: Path, bare: Path) -> str:
    """How `folder` is placed in the bare repository `bare`, for a message."""
    return "a bare git repository" if folder == bare else f"in the bare git repository {bare}"
