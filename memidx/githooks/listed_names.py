"""The files `check all` reads under the pre-commit framework (PRE_COMMIT=1), where its hook
takes no names (`pass_filenames: false`): the framework hands a hook its files in parts of
at most 128 KiB of names, a run each, and memidx's shim ran the framework in such parts
through xargs too (a commit of ~2,000 notes took two runs, each running the drift check and
saying a refusal again). So the shim lists the staged names in a file (NUL-separated) named
in MEMIDX_CHECK_NAMES, for one run of the framework, and the hook reads in one run what git
has staged (the same names, asked of git: a list inherited from another commit would leave
some out; the list is read only by a memory outside git). A file the work tree no longer
holds (deleted, moved away, a folder in its place), which the framework passes no hook, is
among them: it is committed as staged."""

from __future__ import annotations

import os
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError

LISTED = "MEMIDX_CHECK_NAMES"


def framework_files(config: Config, given: list[str]) -> list[str]:
    """`given` and, under the framework, every staged name (git's; the shim's list outside
    git)."""
    named = os.environ.get(LISTED)
    if not named and not (os.environ.get("PRE_COMMIT") == "1" and config.in_git):
        return given
    if config.in_git:
        from memidx.git.staged import staged_names, staged_repo

        # git's own list, not the shim's: the same names (but a submodule, mode 160000, which
        # git diff --name-only lists and no check can read), and a list inherited from another
        # commit (a nested repository's hook run under the shim, a shell that exported it)
        # would leave out what this index stages, a secret committed unread
        staged = staged_names(staged_repo(config.root))
    elif named:
        staged = [os.fsdecode(name) for name in _read(Path(named)).split(b"\0") if name]
    else:
        staged = []
    known = set(staged)
    return [*staged, *(name for name in given if name not in known)]


def _read(path: Path) -> bytes:
    """The shim's list: one line naming it when it cannot be read (a check that cannot run
    must not pass)."""
    from memidx.drafts import read_whole

    hint = "commit again; `git commit --no-verify` skips the checks"
    try:
        data = read_whole(path)  # as it is: no FIFO waited on, no link followed
    except OSError as exc:
        raise MemidxError(f"cannot read the staged names in {path}: {exc.strerror}", hint) from None
    if data is None:
        raise MemidxError(f"no list of the staged names at {path}", hint)
    return data
