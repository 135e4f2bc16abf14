"""Installing a model folder into the cache every clone shares ($XDG_CACHE_HOME/memidx/models).

Two clones may run `make install` at the same time: the folder is assembled once, under a lock
next to it, in a staging folder in the same directory, and renamed into place whole, so no
reader ever sees half a model and the second installer finds the first one's folder ready.
A folder that fails its check (damaged, or left by a memidx that wrote in place) is moved
aside and deleted only once its replacement is complete.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from memidx.drafts import draft_pid, make_folder
from memidx.errors import ModelError
from memidx.portable import file_lock, process_alive, sync_folder
from memidx.remedies import model_install


def install_once(
    target: Path,
    load: Callable[[Path], object],
    assemble: Callable[[Path], None],
    migrate: Callable[[Path, Path], bool],
    legacy: Path | None,
    *,
    durable: bool = True,
) -> None:
    """Make `target` a folder that `load` accepts: keep it when it already is; else fill a
    staging folder from `legacy` (`migrate`, when it returns True) or with `assemble`, check
    it with `load`, and rename it into place (synced first, the rename too, when `durable`).
    What a killed installer left beside it (its staging folder, the old folder it was
    replacing) is removed first."""
    if _usable(target, load):
        if _left_behind(target):
            with file_lock(_lock(target)):
                _remove_left_behind(target)
        return
    make_folder(target.parent, durable=durable)
    with file_lock(_lock(target)):
        _remove_left_behind(target)  # a killed installer's: no other installs meanwhile
        if _usable(target, load):  # another clone installed it while this one waited
            return
        staging = target.with_name(f".{target.name}.{os.getpid()}.staging")
        shutil.rmtree(staging, ignore_errors=True)  # a dead run's, whose pid this one has now
        staging.mkdir()
        try:
            if legacy is None or not legacy.is_dir() or not migrate(staging, legacy):
                _empty(staging)
                assemble(staging)
            load(staging)
            if durable:
                _sync_files(staging)
            _swap_in(staging, target)
            if durable:
                sync_folder(target.parent)  # the swap itself
            _remove_left_behind(target)  # those kept as holding more than the model had
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def under_lock(target: Path, action: Callable[[Path], None]) -> None:
    """Run `action` on the installed `target` while no installer may swap it."""
    with file_lock(_lock(target)):
        action(target)


def _lock(target: Path) -> Path:
    return target.parent / f".{target.name}.lock"


def _usable(folder: Path, load: Callable[[Path], object]) -> bool:
    try:
        load(folder)
    except ModelError:
        return False
    return True


def _empty(folder: Path) -> None:
    """Remove what a failed migration copied, so assembling starts clean."""
    for path in folder.iterdir():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


# `.<name>.<pid>.staging` and `.<name>.<pid>.old` of an installer, and the staging folders of
# memidx before their names carried the pid (tempfile.mkdtemp's 8 characters).
_LEFT = re.compile(r"\.(?P<name>.+)\.(?:(?P<pid>[0-9]+)\.(?:staging|old)|[a-z0-9_]{8})")


def _left_behind(target: Path) -> list[Path]:
    """The folders beside `target` that an installer killed mid-run left (its pid is gone;
    one of an older memidx, which named no pid, is left only by a killed run too: callers
    hold the install lock, which every installer holds while its folder exists). Only one
    holding nothing but files `target` has (or their .partial) is memidx's: a folder someone
    named `.<name>.previous` or `.<name>.2024.old` keeps what they put in it."""
    try:
        names = [path.name for path in target.parent.iterdir()]
        model = {path.name for path in target.iterdir()} if target.is_dir() else set[str]()
    except OSError:
        return []
    found: list[Path] = []
    for name in names:
        match = _LEFT.fullmatch(name)
        if match is None or match["name"] != target.name:
            continue
        pid = match["pid"]
        if pid is not None and process_alive(int(pid)):
            continue
        path = target.parent / name
        if path.is_dir() and not path.is_symlink() and _only_model_files(path, model):
            found.append(path)
    return found


def _only_model_files(folder: Path, model: set[str]) -> bool:
    try:
        return all(
            _model_file(path.name, model) and path.is_file() and not path.is_symlink()
            for path in folder.iterdir()
        )
    except OSError:
        return False


def _model_file(name: str, model: set[str]) -> bool:
    """Whether `name` is one of the model's files, or a draft of one (an older memidx's
    `<file>.partial`, or drafts.py's `.<file>.<pid>.partial`)."""
    return name.removesuffix(".partial") in model or any(
        draft_pid(Path(one), "partial", name) is not None for one in model
    )


def _remove_left_behind(target: Path) -> None:
    for path in _left_behind(target):
        shutil.rmtree(path, ignore_errors=True)


def _sync_files(folder: Path) -> None:
    """fsync every file in `folder`, then the folder: all is on disk before it is renamed."""
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink():
            fd = os.open(path, os.O_RDWR)  # Windows flushes no read-only handle (EBADF)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    sync_folder(folder)


def _swap_in(staging: Path, target: Path) -> None:
    old = target.with_name(f".{target.name}.{os.getpid()}.old")
    if target.exists() or target.is_symlink():
        target.rename(old)
    staging.rename(target)
    if old.is_dir() and not old.is_symlink():
        shutil.rmtree(old, ignore_errors=True)
    elif old.exists() or old.is_symlink():
        old.unlink()


def cache_error(models: Path, exc: OSError) -> ModelError:
    """The one line for a model folder memidx cannot write: which folder, why, and how to
    put the models elsewhere (the bare OSError named only a parent, or HOME's fallback)."""
    import errno

    where = f"{exc.filename}: " if exc.filename else ""
    first = "free space on its disk" if exc.errno == errno.ENOSPC else "make it writable"
    return ModelError(
        f"cannot install the embedding model in {models}: {where}{exc.strerror or exc}",
        f"{first}, or set XDG_CACHE_HOME or MEMIDX_MODELS_DIR to a folder you can write, "
        f"then run `{model_install()}` again",
    )
