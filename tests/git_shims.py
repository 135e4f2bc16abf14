"""A `git` first on PATH, a shell script a test writes to play a person's git at an exact step
of memidx's (tests/cli/test_switch_*.py, test_pending_switch.py and their kin): the script
runs `$REAL_GIT` for everything it does not play."""

from __future__ import annotations

import shutil
from pathlib import Path


def shim_env(folder: Path, script: str, path: str) -> dict[str, str]:
    """Write `script` as `folder`/git (made runnable) and return the environment that puts it
    first on `path`: PATH, and REAL_GIT, the git `path` finds."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "git").write_text(script)
    (folder / "git").chmod(0o755)
    real = shutil.which("git", path=path)
    assert real is not None, f"no git on {path}"
    return {"PATH": f"{folder}:{path}", "REAL_GIT": real}
