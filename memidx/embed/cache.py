"""Installing a model folder into the cache every clone shares ($XDG_CACHE_HOME/memidx/models).

Two clones may run `make install` at the same time: the folder is assembled once, under a lock
next to it, in a staging folder in the same directory, and renamed into place whole, so no
reader ever sees half a model and the second installer finds the first one's folder ready.
A folder that fails its check (damaged, or left by a memidx that wrote in place) is moved
aside and deleted only once its replacement is complete.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from memidx.errors import ModelError
from memidx.portable import file_lock


def install_once(
    target: Path,
    load: Callable[[Path], object],
    assemble: Callable[[Path], None],
    migrate: Callable[[Path, Path], bool],
    legacy: Path | None,
) -> None:
    """Make `target` a folder that `load` accepts: keep it when it already is; else fill a
    staging folder from `legacy` (`migrate`, when it returns True) or with `assemble`, check
    it with `load`, and rename it into place."""
    if _usable(target, load):
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(_lock(target)):
        if _usable(target, load):  # another clone installed it while this one waited
            return
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        staging.chmod(0o755)  # as mkdir makes it: mkdtemp makes it private
        try:
            if legacy is None or not legacy.is_dir() or not migrate(staging, legacy):
                _empty(staging)
                assemble(staging)
            load(staging)
            _swap_in(staging, target)
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
        "then run `make install` again",
    )
