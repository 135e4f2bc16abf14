"""Commit files with git's own `git commit` (so every hook runs), one memidx commit at a time
per clone, retrying while another git holds the index lock."""

from __future__ import annotations

import random
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import Any

from memidx.config import Config
from memidx.errors import CheckFailed, GitError, MemidxError
from memidx.portable import file_lock

ATTEMPTS = 7  # backoff 0.05 s doubling, with jitter: about 5 s before giving up


def commit_paths(config: Config, paths: Sequence[str], subject: str) -> str:
    """git add + git commit of exactly these paths (through GitPython, hooks included);
    returns the new commit id. A failed check leaves the files on disk, unstaged."""
    import git

    repo: Any = git.Repo(config.root)
    what = ", ".join(paths)
    with _serialized(config):
        for attempt in range(ATTEMPTS):
            try:
                repo.git.add("--", *paths)
                repo.git.commit("-q", "-m", subject, "--", *paths)
                return str(repo.head.commit.hexsha)
            except git.GitCommandError as exc:
                stderr = str(exc.stderr or "")
                if "index.lock" in stderr and attempt + 1 < ATTEMPTS:
                    time.sleep(0.05 * 2**attempt * (1 + random.random()))
                    continue
                _unstage(repo, paths)
                raise _commit_error(what, stderr, str(exc.stdout or "")) from exc
    raise GitError(f"git kept its index locked; {what} was not committed", "try again")


def _unstage(repo: Any, paths: Sequence[str]) -> None:
    import git

    try:
        repo.git.reset("-q", "--", *paths)
    except git.GitCommandError:
        return


def _commit_error(ref: str, stderr: str, stdout: str) -> MemidxError:
    lines = [line.strip() for line in (stdout + "\n" + stderr).splitlines() if line.strip()]
    reasons = [line for line in lines if line.startswith(("memidx:", "notes/")) or ": " in line]
    detail = "; ".join(reasons[-3:] or lines[-2:]) or "git commit failed"
    if "index.lock" in stderr:
        return GitError(f"git kept its index locked; {ref} was not committed", "try again")
    return CheckFailed(f"{ref} was not committed: {detail}", f"the file {ref} is kept")


@contextmanager
def _serialized(config: Config) -> Generator[None]:
    """One memidx commit at a time in this clone: a commit and its post-commit hook finish
    before the next commit's pre-commit check looks at the index."""
    with file_lock(config.state_dir / "commit.lock"):
        yield
