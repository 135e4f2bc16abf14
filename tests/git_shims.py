"""A `git` first on PATH, a shell script a test writes to play a person's git at an exact step
of memidx's (tests/cli/test_switch_*.py, test_pending_switch.py and their kin): the script
runs `$REAL_GIT` for everything it does not play."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def shim_env(folder: Path, script: str, path: str = "") -> dict[str, str]:
    """Write `script` as `folder`/git (made runnable) and return the environment that puts it
    first on `path` (by default the real git's folder and the system's): PATH, and REAL_GIT,
    the git `path` finds."""
    if not path:
        real = shutil.which("git")
        assert real is not None
        path = f"{Path(real).parent}:/usr/bin:/bin"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "git").write_text(script)
    (folder / "git").chmod(0o755)
    real = shutil.which("git", path=path)
    assert real is not None, f"no git on {path}"
    return {"PATH": f"{folder}:{path}", "REAL_GIT": real}


def put_git_first(
    monkeypatch: pytest.MonkeyPatch, folder: Path, script: str, path: str = "", **env: str
) -> None:
    """`script` as the git first on PATH for the rest of the test (shim_env: `path` behind
    it), with `env` set beside it."""
    for key, value in {**shim_env(folder, script, path), **env}.items():
        monkeypatch.setenv(key, value)


# a `git` that logs each git memidx runs on the move's copy of the index while index.lock is
# taken (the follow under the lock)
WATCHING_GIT = """#!/bin/sh
case "$GIT_INDEX_FILE" in *memidx-follow-index)
  [ ! -e "$ROOT/.git/index.lock" ] || echo "git $* under index.lock" >> "$LOG" ;;
esac
exec "$REAL_GIT" "$@"
"""


def index_lock_watched(monkeypatch: pytest.MonkeyPatch, folder: Path, root: Path) -> Path:
    """WATCHING_GIT first on PATH (in `folder`/bin) for the memory at `root`: the log it
    writes, empty while no git ran under the lock."""
    log = folder / "log"
    log.write_text("")
    put_git_first(monkeypatch, folder / "bin", WATCHING_GIT, LOG=str(log), ROOT=str(root))
    return log
