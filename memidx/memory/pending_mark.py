"""Whether any note `remember` left pending waits (see memidx/memory/pending_notes.py), asked
without loading that module: every post-* git hook asks, and almost always none does.

The entries live in this work tree's git folder (`.git/memidx/pending-notes/`, a linked work
tree's own `.git/worktrees/<name>/memidx/pending-notes/`), not in `.memidx/`: that folder is
expendable, and `rm -rf .memidx` lost every entry, each note left untracked for good with
nothing to say so. A clone never copies them either. The finisher's lock and log and the
hooks' mark stay in `.memidx/pending-notes/` (FOLDER), which may go at any time."""

from __future__ import annotations

from pathlib import Path

from memidx.config import Config
from memidx.state_folder import ensure_folder

FOLDER = "pending-notes"  # in .memidx/: the finisher's lock and log, the hooks' mark
ENTRIES = ("memidx", FOLDER)  # in the git folder: the entries, `<ns>-<id>.json` each
ENTRY_GLOB = "[0-9]*.json"


def entries_dir(config: Config) -> Path:
    """Where the entries are kept: in this work tree's git folder, read without starting git
    (`.git`, or the folder a `.git` file names); in `.memidx/` when there is none to read."""
    dot_git = config.root / ".git"
    try:
        if dot_git.is_file():  # a linked work tree, a separate git dir: "gitdir: <path>"
            named = dot_git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
            dot_git = config.root / named
    except (OSError, ValueError):
        return legacy_dir(config)
    return dot_git.joinpath(*ENTRIES) if dot_git.is_dir() else legacy_dir(config)


def legacy_dir(config: Config) -> Path:
    """Where entries were kept before (and still are, with no git folder to keep them in)."""
    return config.state_dir / FOLDER


def any_pending(config: Config) -> bool:
    """Whether an entry (a file named by its time, `<ns>-<id>.json`) waits, where entries are
    kept or where an older memidx kept them."""
    return any(entries_dir(config).glob(ENTRY_GLOB)) or any(legacy_dir(config).glob(ENTRY_GLOB))


def entry_files(config: Config) -> list[Path]:
    """The entry files: an older memidx's, in `.memidx/`, moved where entries are kept now
    (where `rm -rf .memidx` leaves them), or read where they are when that fails."""
    here, legacy = entries_dir(config), legacy_dir(config)
    found = list(here.glob(ENTRY_GLOB))
    for entry in legacy.glob(ENTRY_GLOB) if legacy != here else ():
        try:
            ensure_folder(here)
            entry.replace(here / entry.name)  # one rename: never lost, never twice
            found.append(here / entry.name)
        except OSError:  # another file system, a git folder not writable: read it there
            found.append(entry)
    return found
