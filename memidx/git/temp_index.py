"""The temporary indexes and blobs memidx commits through, in git's folder, and those of
memidx processes killed mid-commit (split from commit.py)."""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TEMP_INDEX_PREFIX = "memidx-commit-"


def remove_stale_temporaries(git_dir: Path) -> None:
    """Temporary indexes of memidx processes that were killed mid-commit (memidx's own files,
    by name and by the pid in it that no longer runs)."""
    if not Path("/proc/self").is_dir():
        return  # no way to tell a live pid here: leave them
    for path in git_dir.glob(f"{TEMP_INDEX_PREFIX}*"):  # .index, and .blob (stage_bytes')
        pid = path.name.removeprefix(TEMP_INDEX_PREFIX).split(".")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            path.unlink(missing_ok=True)


def stage_bytes(repo: Any, git_dir: Path, path: str, data: bytes, env: dict[str, str]) -> None:
    """Put `data` at `path` in the temporary index (`env`'s), as a regular file."""
    spool = git_dir / f"{TEMP_INDEX_PREFIX}{os.getpid()}.blob"
    try:
        spool.write_bytes(data)
        blob = str(repo.git.hash_object("-w", "--no-filters", str(spool))).strip()
    finally:
        spool.unlink(missing_ok=True)
    repo.git.update_index("--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
