"""Commit one file memidx wrote on a branch that is not checked out, with git plumbing on that
branch's ref alone: the work tree, git's index and HEAD stay as they are.

A note `remember` left pending belongs to the branch it was remembered on. After a person's
`git switch` to another branch it waited until that branch was checked out again, for ever on
one that stayed unmerged, while each `remember` and `memidx status` said it waited.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from shlex import quote

from memidx.config import Config
from memidx.errors import GitBusy, GitError, IndexLockLeft, MemidxError
from memidx.git.branch_move import move_when_free
from memidx.git.checkouts import holding, once_checked_out, rebased_from, work_trees
from memidx.git.commit import UTF8, WAIT_SECONDS
from memidx.git.commit_lock import serialized
from memidx.git.lock_holders import holder, left_behind
from memidx.git.repo import GitRepo
from memidx.git.temp_index import TEMP_INDEX_PREFIX

TRIES = 5  # the branch moved between the read of its tip and the ref's update: built again
LOCK_POLL = 0.05  # seconds between looks at a branch's lock another git holds


def commit_on(config: Config, branch: str, ref: str, data: bytes, subject: str) -> str | None:
    """Commit `data` at `ref` on `branch` (refs/heads/<name>), on top of its tip, moving the
    ref from that tip only (`update-ref NEW OLD`, under git's ref lock); returns the commit
    (the tip itself when it holds this very file already), None when a work tree checked the
    branch out meanwhile (nothing committed), or it was deleted, before or with the commit.
    MemidxError when the branch holds another file at `ref`; GitBusy when it kept moving, a
    switch in the clone outlasted the wait (named), its ref's lock or commit.lock stayed
    held; IndexLockLeft when a killed git left its ref's lock."""
    repo = GitRepo(config.root)
    name = branch.removeprefix("refs/heads/")
    undone = f"{ref} was not committed on {name}"
    deadline = time.monotonic() + WAIT_SECONDS
    with serialized(config, deadline, undone):
        moved = 0
        while moved < TRIES:
            tip = _tip(repo, branch)
            if not tip:  # deleted since it was looked at: the note waits, for the branch here
                return None
            blob = repo.run("hash-object", "-w", f"--path={ref}", "--stdin", input_bytes=data)
            blob_id = blob.decode().strip()
            there = repo.run("rev-parse", "--verify", "-q", f"{tip}:{ref}", check=False)
            if there.decode().strip() == blob_id:
                return tip  # committed there already (a person's cherry-pick of it, say)
            if there.strip():
                raise MemidxError(
                    f"{name} holds another {ref} now, so {undone}",
                    f"its file, where it is in this work tree, is kept: commit it yourself on "
                    f"{name}; a note never written here is committed beside that file once you "
                    f"`git switch {name}`",
                )
            commit = _build(config, tip, ref, blob_id, subject)
            # HEAD locked with it, moved only while no work tree has it checked out and no
            # switch runs: a `git switch side` since the look had it moved under its index,
            # and the person's next commit there deleted the note
            if not move_when_free(repo, branch, commit, tip, f"memidx: {subject}", until=deadline):
                if holding(config.root, branch) is not None:  # checked out since: it waits
                    return None
                if time.monotonic() >= deadline and _tip(repo, branch) == tip:
                    break  # where it was: a switch still under way, or a lock (_not_moved)
            elif _tip(repo, branch) == commit:
                note = (ref, blob_id)
                kept = _kept_unless_checked_out(repo, branch, commit, tip, note, deadline=deadline)
                return kept if kept is None else _not_deleted(repo, branch, kept, deadline)
            if not _let_go(repo, _ref_lock(repo, branch), deadline):
                moved += 1  # it moved on (or its lock stays): built again on its new tip
    raise _not_moved(repo, branch, undone)


def _ref_lock(repo: GitRepo, branch: str) -> Path | None:
    """The lock git takes to move `branch`, or None when the clone's git folder is not found."""
    common = repo.run("rev-parse", "--path-format=absolute", "--git-common-dir", check=False)
    return Path(common.decode().strip()) / f"{branch}.lock" if common.strip() else None


def _let_go(repo: GitRepo, lock: Path | None, deadline: float) -> bool:
    """Whether another git's ref update held `lock` and let it go before `deadline` (it takes
    milliseconds: the tries that failed on it went by at once, and the note waited)."""
    if lock is None or not lock.exists() or left_behind(lock, repo.root, work_trees(repo)):
        return False
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(LOCK_POLL)
    return not lock.exists()


def _not_moved(repo: GitRepo, branch: str, undone: str) -> GitError:
    """Why `branch` could not be moved: its ref's lock another git holds, or a killed git left
    (each update-ref failed on it: "main kept moving" was said of a branch that never moved,
    with "try again", which no waiting helps when nothing will remove it); else it moved."""
    name, lock = branch.removeprefix("refs/heads/"), _ref_lock(repo, branch)
    if lock is None or not lock.exists():
        if switch := _switch_under_way(repo):  # not moving: waited for ("kept moving" said)
            return GitBusy(
                f"{switch} of this clone was still under way after {WAIT_SECONDS:g} s, so {undone}",
                "try again once it ends",
            )
        return GitBusy(f"{name} kept moving; {undone}", "try again")
    trees = work_trees(repo)  # a git in a linked one moving the branch: no killed git's
    if left_behind(lock, repo.root, trees):
        return IndexLockLeft(
            f"{lock} was left behind by a git process that was killed (no running process holds "
            f"it), so {name} could not be moved; {undone}",
            f"check that no git command is running, then remove it: rm {quote(str(lock))}",
        )
    by = holder(lock, repo.root, trees) or "another git command of this clone"
    return GitBusy(f"{lock} was held by {by}, so {name} could not be moved; {undone}", "try again")


def _switch_under_way(repo: GitRepo) -> str:
    """The git that checks a branch out in a work tree of the clone (`a `git switch` (pid
    N)`), as move_branch's look found it; "" when none runs."""
    from memidx.git.invocation import GUESSED, PAGED_GUESS, SHELL_ALIAS, UNREAD
    from memidx.git.publish import SWITCHING, committers, in_its_hook

    trees = work_trees(repo)
    found = committers(trees[0], SWITCHING, also=trees[1:]) if trees else {}
    for pid, it in found.items():
        command = it.split(" ", 1)[0]
        if not in_its_hook(pid):
            what = {SHELL_ALIAS: "a git alias running a shell", GUESSED: "a mistyped git command",
                    PAGED_GUESS: "a mistyped git command", UNREAD: "a git alias"}  # fmt: skip
            what = what.get(command, f"a `git {command}`")
            return f"{what} (pid {pid})"
    return ""


def _kept_unless_checked_out(
    repo: GitRepo, branch: str, commit: str, tip: str, note: tuple[str, str], *, deadline: float
) -> str | None:
    """`commit`, or None once `branch` is moved back to `tip`: a `git switch` or `git worktree
    add` of it that read the tip before the update left the branch moved under that work
    tree's index, which lacked the note (`git status` there: "D" staged, for the person's next
    commit there to delete it). One that read `commit` holds the note (`note`: its path and
    blob) in its index: moved back, `git status` there said "A", the note staged for the
    person's own next commit, and it stayed pending here."""
    held_by = once_checked_out(repo, branch, deadline)
    if held_by is None or _indexed(repo, held_by, note) or rebased_from(repo, commit):
        return commit  # a rebase that began at it builds on it: moved back, its end failed
    repo.run("update-ref", "-m", "memidx: taken back", branch, tip, commit, check=False)
    found = repo.run("rev-parse", "--verify", "-q", f"{branch}^{{commit}}", check=False)
    return None if found.decode().strip() == tip else commit  # else a commit on it followed


def _not_deleted(repo: GitRepo, branch: str, commit: str, deadline: float) -> str | None:
    """`commit`, or None when `branch` no longer holds it once no `git branch` that may delete
    or move it runs, or one still runs (LATE_FLOOR past `deadline`): `git branch -d` checks the
    tip it read is merged, then deletes the ref without checking it is still that tip (git
    2.39), so a commit made between the two went with the branch, unreachable, its pending note
    dropped (chaos.py, seed 1). None is safe: the note stays pending, and its next commit finds
    it on the branch if the branch kept it (committed once)."""
    from memidx.git.branch_movers import settled
    from memidx.git.late import LATE_FLOOR

    if not settled(work_trees(repo), max(deadline, time.monotonic() + LATE_FLOOR)):
        return None  # one outlasts the wait: the note waits (it said committed, then lost it)
    found = repo.run("rev-parse", "--verify", "-q", f"{branch}^{{commit}}", check=False)
    held = found.decode().strip()
    if held == commit or (held and _reaches(repo, held, commit)):
        return commit
    return None


def _reaches(repo: GitRepo, tip: str, commit: str) -> bool:
    """Whether `tip` holds `commit` (a commit on it followed memidx's)."""
    return repo.run("merge-base", commit, tip, check=False).decode().strip() == commit


def _indexed(repo: GitRepo, git_dir: Path, note: tuple[str, str]) -> bool:
    """Whether the index of the work tree whose git folder is `git_dir` holds `note`'s blob."""
    ref, blob = note
    index = GitRepo(repo.root, index_file=str(git_dir / "index"))
    staged = index.run("ls-files", "-s", "--", ref, check=False).decode().split()
    return len(staged) > 1 and staged[1] == blob


def _tip(repo: GitRepo, branch: str) -> str:
    """The branch's commit; "" once it is gone (it raised, and the pending note was dropped)."""
    found = repo.run("rev-parse", "--verify", "-q", f"{branch}^{{commit}}", check=False)
    return found.decode().strip()


def _build(config: Config, tip: str, ref: str, blob: str, subject: str) -> str:
    """The commit of `tip`'s tree plus `blob` at `ref`, built in a temporary index."""
    found = GitRepo(config.root).run("rev-parse", "--absolute-git-dir").decode().strip()
    temporary = Path(found) / f"{TEMP_INDEX_PREFIX}{os.getpid()}.index"
    repo = GitRepo(config.root, index_file=str(temporary))
    try:
        repo.run("read-tree", tip)
        repo.run("update-index", "--add", "--cacheinfo", f"100644,{blob},{ref}")
        tree = repo.run("write-tree").decode().strip()
        utf8 = ("-c", f"i18n.commitEncoding={UTF8}")
        return repo.run(*utf8, "commit-tree", tree, "-p", tip, "-m", subject).decode().strip()
    finally:
        temporary.unlink(missing_ok=True)
