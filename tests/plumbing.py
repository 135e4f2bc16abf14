"""A throwaway repository and a commit made beside its HEAD with git's plumbing (a temporary
index, `commit-tree`), as memidx makes its own: HEAD, git's index and the work tree stay where
they are, for a move of HEAD (memidx.git.publish.move_head) or its shell to bring them there."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.helpers import GIT_IDENTITY, clean_env


def git(root: Path, *args: str, index: Path | None = None, stdin: bytes = b"") -> str:
    """Run git in `root` (its own index file `index`, if named): its stdout, stripped."""
    env = clean_env(**({"GIT_INDEX_FILE": str(index)} if index else {}))
    argv = ["git", *args]
    done = subprocess.run(argv, cwd=root, env=env, input=stdin, capture_output=True, check=True)
    return done.stdout.decode().strip()


def committed(root: Path, files: Mapping[str, bytes]) -> str:
    """A new repository in `root` whose one commit (HEAD, checked out) holds `files`."""
    git(root, "init", "-q", "-b", "main")
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    git(root, "add", "-A")
    git(root, *GIT_IDENTITY, "commit", "-q", "-m", "files")
    return git(root, "rev-parse", "HEAD")


def commit_beside(
    root: Path,
    old: str,
    message: str,
    *,
    deleted: Sequence[str] = (),
    written: Mapping[str, bytes] | None = None,
) -> str:
    """A commit on `old` that deletes `deleted` and writes `written`, made with a temporary
    index (.git/test-index): nothing else in `root` changes."""
    temp = root / ".git" / "test-index"
    git(root, "read-tree", old, index=temp)
    if deleted:
        git(root, "rm", "-q", "--cached", *deleted, index=temp)
    for path, data in (written or {}).items():
        blob = git(root, "hash-object", "-w", "--stdin", stdin=data)
        git(root, "update-index", "--cacheinfo", f"100644,{blob},{path}", index=temp)
    tree = git(root, "write-tree", index=temp)
    return git(root, *GIT_IDENTITY, "commit-tree", tree, "-p", old, "-m", message)


def forgetting(root: Path, paths: Sequence[str]) -> tuple[str, str]:
    """A repository of notes at `paths` and a commit beside it that deletes them: (old, new)."""
    old = committed(root, {p: f"# {p}\n\nWhat {p} says.\n".encode() for p in paths})
    return old, commit_beside(root, old, "forget", deleted=paths)
