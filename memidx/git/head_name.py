"""The branch HEAD names, read as git reads it (split from memidx.git.publish, whose move
looks at it while git holds HEAD's lock)."""

from __future__ import annotations

import subprocess
from pathlib import Path

REFTABLE_STUB = "refs/heads/.invalid"  # what a reftable clone's HEAD file says, for older gits


def head_names(git_dir: Path) -> str | None:
    """The branch HEAD names (`refs/heads/<name>`), read from its file; None when detached.
    Git tells it where the file does not: a reftable clone's names no branch (REFTABLE_STUB,
    for older gits), and with core.preferSymlinkRefs it is a link to the branch's own file
    (read through, a commit id): every remember, forget and haystack commit there was
    refused as if the person had switched branch."""
    head = git_dir / "HEAD"
    try:
        text = "" if head.is_symlink() else head.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    text = text.strip()
    named = text.removeprefix("ref:").strip() if text.startswith("ref:") else None
    if text and named != REFTABLE_STUB:
        return named
    argv = ["git", f"--git-dir={git_dir}", "symbolic-ref", "-q", "HEAD"]
    found = subprocess.run(argv, capture_output=True, check=False)
    return found.stdout.decode(errors="replace").strip() or None
