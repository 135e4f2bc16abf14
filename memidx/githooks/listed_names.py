"""The files `check all` reads under the pre-commit framework (PRE_COMMIT=1).

The framework hands a hook its files in parts of at most 128 KiB of names, a run each (a
commit of ~2,000 notes took two runs, each running the drift check and saying a refusal
again). Under memidx's shim, which lists the staged names in a file named in
MEMIDX_CHECK_NAMES beside the copy of the index it points GIT_INDEX_FILE at, the first run
claims that list (renames it to `.claimed`) and reads every name git stages (git's own list: a
submodule, which `git diff --name-only` lists and no check can read, stays out; a file the work
tree no longer holds, which the framework passes no hook, is in: it is committed as staged);
the runs after it find the list claimed and check nothing again. Run by hand (`pre-commit run`,
`--all-files`, `--files`, CI's `--from-ref`), or by the framework's own git hook, the hook
reads the files the framework gives it and the staged ones it gives no hook, which the work
tree holds as no file (a link, a file deleted or replaced by a folder since): each part read
every staged name, and a staged secret was refused in each part and again in the part given
its file (three times by `pre-commit run --all-files` in a memory of 3,000 notes). A list
whose index is not the one GIT_INDEX_FILE names (inherited from another commit: a nested
repository's hook, a shell that exported it) is not this run's."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError

LISTED = "MEMIDX_CHECK_NAMES"
CLAIMED = ".claimed"  # the list renamed by the run that read it: the later runs check nothing


def framework_files(config: Config, given: list[str]) -> list[str] | None:
    """`given` and, under the framework, the staged names: every one in the first part of
    its run under memidx's shim, else those it gives no hook; None for a later part of a run
    under the shim (the first read every staged name)."""
    named = os.environ.get(LISTED)
    claimed = False
    if named and config.in_git and _this_runs(named):
        try:
            Path(named).rename(named + CLAIMED)
            claimed = True
        except FileNotFoundError:
            if Path(named + CLAIMED).is_file():
                return None  # claimed by the first part of this run, which read them all
        except OSError as exc:
            raise MemidxError(
                f"cannot claim the staged names in {named}: {exc.strerror}",
                "commit again; `git commit --no-verify` skips the checks",
            ) from None
    elif named and not config.in_git:
        listed = [os.fsdecode(name) for name in _read(Path(named)).split(b"\0") if name]
        return _with(listed, given)
    if not (os.environ.get("PRE_COMMIT") == "1" and config.in_git):
        return given
    from memidx.git.staged import staged_names, staged_repo

    if not claimed:  # the framework gives every part its share of the files the tree holds
        from memidx.githooks.run_parts import later_part

        # asked before the index is read: the marker is stamped with the index as it was
        # then, so one staged while this part reads is another index's, and the next part says
        # it (stamped after, a name staged by an agent's commit beside the run was lost)
        if later_part(config.root):  # the first part of this run said the staged ones
            return given
        staged = staged_names(staged_repo(config.root))
        return _with([name for name in staged if not _a_file(config.root / name)], given)
    return _with(staged_names(staged_repo(config.root)), given)


def _a_file(path: Path) -> bool:
    """Whether the work tree holds `path` as a file, which the framework gives a hook (it
    leaves out a link, a folder and a name the tree lacks, as its `types: [file]` says)."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _this_runs(named: str) -> bool:
    """Whether the list is the one memidx's shim made for this commit: it names it after the
    copy of the index it points GIT_INDEX_FILE at (`memidx-checks-<pid>.index`, `.names`)."""
    stem, dot, kind = named.rpartition(".")
    return bool(dot) and kind == "names" and os.environ.get("GIT_INDEX_FILE") == f"{stem}.index"


def _with(staged: list[str], given: list[str]) -> list[str]:
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
