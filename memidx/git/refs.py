"""HEAD read from .git's own files, without running git: cheap enough for every search and
check, and None whenever the files do not say it plainly (callers then ask git or stay silent)."""

from __future__ import annotations

from pathlib import Path


def read_head(root: Path) -> str | None:
    """The commit at HEAD read from .git's files, without running git (for the search path):
    None when it cannot be read this way (then callers stay silent rather than guess)."""
    try:
        git_dir = root / ".git"
        if git_dir.is_file():  # a linked worktree or submodule: "gitdir: <path>"
            pointer = git_dir.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
            git_dir = (root / pointer).resolve()
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return head or None
        ref = head.removeprefix("ref:").strip()
        common = git_dir
        if (git_dir / "commondir").is_file():
            common = (
                git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()
            ).resolve()
        for base in (git_dir, common):
            loose = base / ref
            if loose.is_file():
                return loose.read_text(encoding="utf-8").strip() or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if name == ref:
                    return sha
    except OSError:
        return None
    return None
