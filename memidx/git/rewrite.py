"""Replace files in the local commits no remote has yet (`memidx haystack purge`): each commit
reachable from HEAD but from no remote-tracking branch is built again with the new bytes at
those paths, same author, committer, dates and message, and HEAD moves with `update-ref`
against the HEAD it was built on. Pushed commits are never rewritten."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from memidx.config import Config
from memidx.errors import GitError
from memidx.git.process import run_process
from memidx.git.repo import GitRepo, git_env

PERSON = re.compile(r"^(.*) <(.*)> (\d+ [+-]\d{4})$")


def pushed_paths(root: Path, refs: Sequence[str]) -> set[str]:
    """The paths some commit on a remote-tracking branch holds (their bytes left the clone)."""
    repo = GitRepo(root)
    return {
        r for r in refs if repo.run("rev-list", "-1", "--remotes", "--", r, check=False).strip()
    }


def rewrite_unpushed(config: Config, replaced: Mapping[str, bytes]) -> int:
    """Put `replaced` (path -> bytes) into every unpushed commit that holds those paths; returns
    how many commits were built again."""
    from memidx.git.commit import serialized

    repo = GitRepo(config.root)
    with serialized(config):
        head = repo.head()
        if head is None:
            return 0
        blobs = {
            path: repo.run("hash-object", "-w", "--stdin", input_bytes=data).decode().strip()
            for path, data in replaced.items()
        }
        commits = repo.run("rev-list", "--reverse", "--topo-order", "HEAD", "--not", "--remotes")
        mapping: dict[str, str] = {}
        for commit in commits.decode().split():
            mapping[commit] = _rebuilt(repo, commit, blobs, mapping)
        new_head = mapping.get(head, head)
        if new_head == head:
            return 0
        repo.run("update-ref", "-m", "memidx haystack purge", "HEAD", new_head, head)
        repo.run("reset", "-q", new_head, "--", *replaced)  # git's index: the new bytes
    return sum(1 for old, new in mapping.items() if old != new)


def _rebuilt(repo: GitRepo, commit: str, blobs: Mapping[str, str], mapping: dict[str, str]) -> str:
    """The commit with the new blobs at their paths and its parents as rebuilt; itself when
    nothing changes."""
    raw = repo.run("cat-file", "commit", commit).decode("utf-8", "surrogateescape")
    headers, _, message = raw.partition("\n\n")
    fields = [line.split(" ", 1) for line in headers.splitlines() if " " in line]
    parents = [value for key, value in fields if key == "parent"]
    tree = next(value for key, value in fields if key == "tree")
    git_dir = Path(repo.run("rev-parse", "--absolute-git-dir").decode().strip())
    temporary = git_dir / f"memidx-purge-{os.getpid()}.index"
    env = {**git_env(), "GIT_INDEX_FILE": str(temporary)}
    try:
        _git(repo, env, "read-tree", commit)
        for path, blob in blobs.items():
            if _git(repo, env, "ls-files", "--", path).strip():
                _git(repo, env, "update-index", "--cacheinfo", f"100644,{blob},{path}")
        new_tree = _git(repo, env, "write-tree").decode().strip()
    finally:
        temporary.unlink(missing_ok=True)
    new_parents = [mapping.get(p, p) for p in parents]
    if new_tree == tree and new_parents == parents:
        return commit
    for key, value in fields:
        found = PERSON.match(value) if key in ("author", "committer") else None
        if found is not None:
            who = "AUTHOR" if key == "author" else "COMMITTER"
            env[f"GIT_{who}_NAME"], env[f"GIT_{who}_EMAIL"] = found.group(1), found.group(2)
            env[f"GIT_{who}_DATE"] = found.group(3)
    env.pop("GIT_INDEX_FILE")
    args = ["commit-tree", new_tree, *[a for p in new_parents for a in ("-p", p)]]
    return _git(repo, env, *args, stdin=message.encode("utf-8", "surrogateescape")).decode().strip()


def _git(repo: GitRepo, env: Mapping[str, str], *args: str, stdin: bytes = b"") -> bytes:
    done = run_process(["git", "-C", str(repo.root), *args], env, stdin)
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {reason[-1] if reason else 'no message'}", "")
    return done.stdout
