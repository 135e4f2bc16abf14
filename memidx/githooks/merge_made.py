"""Whether the commit at HEAD is a merge, read from git's files: the post-commit hook asks on
every commit, and a git process would cost each one (memidx.memory.forgotten_back)."""

from __future__ import annotations

import zlib
from pathlib import Path


def merge_at_head(root: Path) -> bool:
    """Whether HEAD's commit has other than one parent: a merge `git commit` finished after a
    conflict, when no post-merge hook runs. True when the files cannot tell (a linked work
    tree, a packed ref or object): the merge check's own git commands tell then."""
    try:
        return _parents(root / ".git") != 1
    except (OSError, ValueError, zlib.error):
        return True


def _parents(folder: Path) -> int:
    """The parents of HEAD's commit, from the loose ref and object `git commit` just wrote."""
    if not folder.is_dir():
        raise ValueError(f"{folder} is no git folder")
    head = (folder / "HEAD").read_text(encoding="ascii").strip()
    if head.startswith("ref: refs/"):
        head = (folder / head.removeprefix("ref: ")).read_text(encoding="ascii").strip()
    if len(head) < 40 or not all(c in "0123456789abcdef" for c in head):
        raise ValueError(f"HEAD names {head!r}")
    data = zlib.decompress((folder / "objects" / head[:2] / head[2:]).read_bytes())
    header = data.partition(b"\n\n")[0]
    return header.count(b"\nparent ")
