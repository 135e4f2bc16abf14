"""The FILES a person gives `memidx check`: each names a file of the memory's clone, in its
work tree, git's index or HEAD (a deletion staged). One that names nothing (`check secrets
/nonexistent`, a typo, a draft outside the clone) passed in silence, exit 0, as if checked
and clean; it is said in one line each and the check exits 1 (the README's exit codes: a
well-formed argument naming nothing). pre-commit passes the staged files, which all exist."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from memidx.config import Config
from memidx.paths import within


def unnamed(config: Config, files: Sequence[str]) -> list[str]:
    """One `memidx: error:` line for each of `files` that names no file of the clone."""
    said: list[str] = []
    for name in files:
        path = Path(name)
        ref = within(config.root, path) if path.is_absolute() else path
        if ref is None and os.path.lexists(path):
            said.append(
                f"memidx: error: {name}: not in the memory's clone {config.root} (the checks "
                "read the files of its notes folder as they are staged: give one of them)"
            )
        elif ref is None or not (
            os.path.lexists(config.root / ref) or os.path.lexists(path) or _in_git(config, ref)
        ):
            said.append(
                f"memidx: error: {name}: no such file in {config.root} (give a file of the "
                "clone; a deletion is checked once staged)"
            )
    return said


def _in_git(config: Config, ref: Path) -> bool:
    """Whether git's index or HEAD holds `ref` (its deletion staged, or a file the index holds
    and the work tree does not)."""
    if not config.in_git:
        return False
    from memidx.git.staged import staged_repo

    repo = staged_repo(config.root)
    return any(repo.has(where, ref.as_posix()) for where in ("", "HEAD"))
