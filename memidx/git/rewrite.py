"""Replace files in the local commits no remote has yet (`memidx haystack purge`): each commit
reachable from HEAD but from no remote-tracking branch is built again with the new bytes at
those paths, same author, committer, dates and message, and HEAD moves to the rebuilt HEAD as
memidx's own commits move it (memidx.git.commit.publish: never while a person's git is
committing or holds the index, compare-and-swap against the HEAD it was built on, built again
when HEAD moved). Pushed commits are never rewritten."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
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


def rewrite_unpushed(
    config: Config, replaced: Mapping[str, bytes], then: Callable[[], None] = lambda: None
) -> int:
    """Put `replaced` (path -> bytes) into every unpushed commit that holds those paths, run
    `then` (the work tree's files follow) and point git's index at the new bytes; returns how
    many commits were built again. HEAD moves as memidx's own commits move it (never while a
    person's git is committing, never from a HEAD that moved since it was read: built again
    then); GitError when that cannot happen in time, and then nothing changed."""
    import git

    from memidx.git.commit import WAIT_SECONDS, publish, serialized, update_user_index

    repo = GitRepo(config.root)
    git_dir = Path(repo.run("rev-parse", "--absolute-git-dir").decode().strip())
    rebuilt: dict[str, str] = {}
    blobs: dict[str, str] = {}

    def build(head: str | None) -> str:
        if head is None:
            raise GitError("HEAD has no commit any more; nothing was rewritten", "try again")
        rebuilt.clear()
        commits = repo.run("rev-list", "--reverse", "--topo-order", head, "--not", "--remotes")
        for commit in commits.decode().split():
            rebuilt[commit] = _rebuilt(repo, commit, blobs, rebuilt)
        return rebuilt.get(head, head)

    deadline = time.monotonic() + WAIT_SECONDS
    with serialized(config):
        if repo.head() is None:
            then()
            return 0
        for path, data in replaced.items():
            stored = repo.run("hash-object", "-w", "--stdin", input_bytes=data)
            blobs[path] = stored.decode().strip()
        head = publish(
            config.root, git_dir, build, repo.head, "memidx haystack purge", deadline=deadline,
            undone="the unpushed commits were not rewritten and no segment changed",
        )  # fmt: skip
        count = sum(1 for old, new in rebuilt.items() if old != new)
        then()
        if count:
            paths = sorted(replaced)
            done = f"rewrote the unpushed commits up to {head[:12]}"
            shows = "the forgotten bytes as staged"
            update_user_index(git.Repo(config.root), paths, head, deadline, done=done, shows=shows)
    return count


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
