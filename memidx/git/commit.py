"""Commit files memidx wrote (a remembered note, haystack segments) with git plumbing, so the
user's work tree is never touched and no hook stashes it.

The commit is built in a temporary index (`read-tree HEAD`, `add` of exactly these paths,
`write-tree`, `commit-tree`) and published with `update-ref HEAD <new> <old>`, which fails when
HEAD moved meanwhile; then it is built again on the new HEAD. Only after that is the user's
index told about these paths (`reset -q -- paths`, the same as `git add` of what was
committed), so whatever else the user had staged or edited stays as it was. Commands run
through GitPython's command wrapper (a listed dependency), one memidx commit at a time per
clone.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memidx.config import Config
from memidx.errors import GitError
from memidx.portable import file_lock

ATTEMPTS = 7  # backoff 0.05 s doubling, with jitter: about 5 s before giving up
TEMP_INDEX_PREFIX = "memidx-commit-"


def commit_paths(config: Config, paths: Sequence[str], subject: str) -> str:
    """Commit exactly these paths (files or folders, as they are in the work tree) on HEAD;
    returns the new commit id. Nothing but HEAD's branch and these paths' index entries
    changes; no hook runs (the caller checks and syncs in-process)."""
    import git

    repo: Any = git.Repo(config.root)
    git_dir = Path(str(repo.git_dir))
    what = ", ".join(paths)
    with serialized(config):
        _wait_for_index(git_dir / "index.lock", what)
        commit = _publish(repo, git_dir, paths, subject, what)
        _update_user_index(repo, git_dir, paths, commit, what)
    return commit


def _publish(repo: Any, git_dir: Path, paths: Sequence[str], subject: str, what: str) -> str:
    """Build the commit on the current HEAD and move HEAD to it, again if HEAD moved."""
    import git

    for attempt in range(ATTEMPTS):
        head = _head(repo)
        commit = _build(repo, git_dir, head, paths, subject)
        try:
            repo.git.update_ref("-m", f"memidx: {subject}", "HEAD", commit, head or "0" * 40)
        except git.GitCommandError as exc:
            if attempt + 1 < ATTEMPTS:  # another commit landed first: build on top of it
                _pause(attempt)
                continue
            raise GitError(f"HEAD kept moving; {what} was not committed", "try again") from exc
        return commit
    raise GitError(f"HEAD kept moving; {what} was not committed", "try again")


def _build(repo: Any, git_dir: Path, head: str | None, paths: Sequence[str], subject: str) -> str:
    import git

    _remove_stale_temporaries(git_dir)
    temporary = git_dir / f"{TEMP_INDEX_PREFIX}{os.getpid()}.index"
    env = {"GIT_INDEX_FILE": str(temporary)}
    try:
        if head is None:
            repo.git.read_tree("--empty", env=env)
        else:
            repo.git.read_tree(head, env=env)
        repo.git.add("-A", "--", *paths, env=env)
        tree = str(repo.git.write_tree(env=env)).strip()
        parents = ["-p", head] if head else []
        return str(repo.git.commit_tree(tree, *parents, "-m", subject)).strip()
    except git.GitCommandError as exc:
        raise _git_error(exc, ", ".join(paths)) from exc
    finally:
        temporary.unlink(missing_ok=True)


def _update_user_index(
    repo: Any, git_dir: Path, paths: Sequence[str], commit: str, what: str
) -> None:
    """Point the user's index entries for these paths at what was committed."""
    import git

    for attempt in range(ATTEMPTS):
        try:
            repo.git.reset("-q", commit, "--", *paths)
            return
        except git.GitCommandError as exc:
            if "index.lock" in str(exc.stderr or "") and attempt + 1 < ATTEMPTS:
                _pause(attempt)
                continue
            raise GitError(
                f"committed {what} as {commit[:12]}, but git's index stayed locked, so "
                "`git status` shows it as staged for deletion",
                f"run `git reset -q -- {' '.join(paths)}` once the other git command ends",
            ) from exc


def _head(repo: Any) -> str | None:
    import git

    try:
        return str(repo.git.rev_parse("--verify", "-q", "HEAD^{commit}")).strip() or None
    except git.GitCommandError:
        return None  # an unborn branch: the first commit


def _wait_for_index(lock: Path, what: str) -> None:
    """Wait (with backoff) while another git process holds the index lock: the user's index
    is updated after the commit. A lock that no running process holds was left by a killed
    git: waiting for it is pointless, and removing it is the user's call."""
    for attempt in range(ATTEMPTS):
        if not lock.exists():
            return
        if _held_by_nobody(lock):
            raise GitError(
                f"{lock} was left behind by a git process that was killed (no running "
                f"process holds it); {what} was not committed",
                f"check that no git command is running, then remove it: rm {lock}",
            )
        _pause(attempt)
    raise GitError(f"git kept its index locked; {what} was not committed", "try again")


def _held_by_nobody(lock: Path) -> bool:
    """True only when nothing can be holding `lock`: no process has it open, and no git
    process runs in this repository (git keeps index.lock while its hooks run, with the file
    closed). Linux /proc; elsewhere never True: unknown."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return False
    target = str(lock.resolve())
    repository = lock.resolve().parent.parent  # <repo>/.git/index.lock
    for pid_dir in proc.glob("[0-9]*"):
        if _holds(pid_dir, target) or _git_in(pid_dir, repository):
            return False
    return True


def _holds(pid_dir: Path, target: str) -> bool:
    try:
        links = list((pid_dir / "fd").iterdir())
    except OSError:
        return False  # another user's process, or one that just ended
    for link in links:
        try:
            if str(link.readlink()) == target:
                return True
        except OSError:
            continue
    return False


def _git_in(pid_dir: Path, repository: Path) -> bool:
    """A running git whose working folder is in this repository (or its .git)."""
    try:
        if (pid_dir / "comm").read_text().strip() != "git":
            return False
        cwd = (pid_dir / "cwd").readlink()
    except OSError:
        return False
    return cwd == repository or repository in cwd.parents


def _remove_stale_temporaries(git_dir: Path) -> None:
    """Temporary indexes of memidx processes that were killed mid-commit (memidx's own files,
    by name and by the pid in it that no longer runs)."""
    if not Path("/proc/self").is_dir():
        return  # no way to tell a live pid here: leave them
    for path in git_dir.glob(f"{TEMP_INDEX_PREFIX}*.index"):
        pid = path.name.removeprefix(TEMP_INDEX_PREFIX).removesuffix(".index")
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            path.unlink(missing_ok=True)


def _git_error(exc: Any, what: str) -> GitError:
    stderr = str(exc.stderr or "").strip()
    if "index.lock" in stderr:
        return GitError(f"git kept its index locked; {what} was not committed", "try again")
    if "Please tell me who you are" in stderr or "empty ident" in stderr:
        return GitError(
            f"git has no author identity, so {what} was not committed",
            'set one: git config user.name "Your Name" && git config user.email you@example.com',
        )
    last = stderr.splitlines()[-1] if stderr else "git failed"
    return GitError(f"{what} was not committed: {last}", "see git's message above")


def _pause(attempt: int) -> None:
    time.sleep(0.05 * 2**attempt * (1 + random.random()))


@contextmanager
def serialized(config: Config) -> Generator[None]:
    """One memidx commit (or share's pull) at a time in this clone: HEAD moves for one."""
    with file_lock(config.state_dir / "commit.lock"):
        yield
