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
from memidx.git.commit import UTF8, WAIT_SECONDS
from memidx.git.commit_lock import serialized
from memidx.git.lock_holders import holder, left_behind
from memidx.git.repo import GitRepo
from memidx.git.temp_index import TEMP_INDEX_PREFIX

TRIES = 5  # the branch moved between the read of its tip and the ref's update: built again
LOCK_POLL = 0.05  # seconds between looks at a branch's lock another git holds, or a switch


def checked_out_elsewhere(root: Path, branch: str) -> Path | None:
    """The work tree where `branch` (refs/heads/<name>) is checked out, or is being rebased
    (HEAD detached, its name in rebase-merge/ or rebase-apply/): a commit on that ref from here
    went under that work tree's index, or was dropped when its rebase ended. None when none."""
    found = holding(root, branch)
    return None if found is None else found[0]


def holding(root: Path, branch: str) -> tuple[Path, bool] | None:
    """The work tree that holds `branch` (see checked_out_elsewhere), and whether it is
    rebasing it (rather than having it checked out); None when none does."""
    git_dir = _holder(GitRepo(root), branch)
    if git_dir is None:
        return None
    pointer = _read(git_dir / "gitdir")  # a linked work tree's; the main one's: none
    there = Path(pointer).parent if pointer else git_dir.parent
    from memidx.git.publish import head_names

    return there, head_names(git_dir) != branch


def in_use(repo: GitRepo, branch: str) -> bool:
    """Whether a work tree of the clone has `branch` checked out or is rebasing it, or a git
    checks a branch out in one now (Linux /proc): a move of the branch then goes under that
    work tree's index, or fails its rebase's end (memidx.git.branch_move, a purge's)."""
    dirs = git_dirs(repo)  # read once: the look is made while the branch's lock is held
    return any(_holds(git_dir, branch) for git_dir in dirs) or _switching(repo, dirs)


def _holder(repo: GitRepo, branch: str) -> Path | None:
    """The git folder of the work tree that has `branch` checked out (or rebased), or None."""
    return next((git_dir for git_dir in git_dirs(repo) if _holds(git_dir, branch)), None)


def _holds(git_dir: Path, branch: str) -> bool:
    """Whether the work tree of `git_dir` has `branch` checked out (HEAD read as git reads a
    symbolic link's) or is rebasing it."""
    from memidx.git.publish import head_names

    if head_names(git_dir) == branch or branch in (_read(git_dir / n) for n in REBASED):
        return True
    return _applying_to(git_dir, branch)


def _applying_to(git_dir: Path, branch: str) -> bool:
    """Whether a `git rebase --apply` of `branch` runs there: it writes its head-name only once
    it stops, and its end moved the branch from wherever it was then (a purge's rewrite, a
    note's commit, undone, the forgotten bytes back). The tip it began at is its ORIG_HEAD."""
    from memidx.git.process import run_process
    from memidx.git.repo import git_env

    applying = git_dir / "rebase-apply"
    if not (applying / "rebasing").is_file() or (applying / "head-name").is_file():
        return False
    argv = ["git", f"--git-dir={git_dir}", "rev-parse", "-q", "--verify", f"{branch}^{{commit}}"]
    tip = run_process(argv, git_env(), b"").stdout.decode().strip()
    return bool(tip) and tip == _read(git_dir / "ORIG_HEAD")


def git_dirs(repo: GitRepo) -> list[Path]:
    """The git folder of each work tree of the clone (a bare repository's HEAD is no checkout:
    git lets a work tree check its branch out, and a note for it waited for ever)."""
    common = repo.run("rev-parse", "--path-format=absolute", "--git-common-dir", check=False)
    if not common.strip():
        return []
    folder = Path(common.decode().strip())
    bare = repo.run("config", "--file", str(folder / "config"), "--bool", "core.bare", check=False)
    main = [] if bare.strip() == b"true" else [folder]
    return [*main, *sorted((folder / "worktrees").glob("*"))]


REBASED = ("rebase-merge/head-name", "rebase-apply/head-name")  # the branch a rebase ends on


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def commit_on(config: Config, branch: str, ref: str, data: bytes, subject: str) -> str | None:
    """Commit `data` at `ref` on `branch` (refs/heads/<name>), on top of its tip, moving the
    ref from that tip only (`update-ref NEW OLD`, under git's ref lock); returns the commit
    (the tip itself when it holds this very file already), None when a work tree checked the
    branch out meanwhile (nothing committed). MemidxError when the branch holds another file
    at `ref`; GitBusy when it kept moving, its ref's lock or commit.lock stayed held;
    IndexLockLeft when a killed git left its ref's lock."""
    repo = GitRepo(config.root)
    name = branch.removeprefix("refs/heads/")
    undone = f"{ref} was not committed on {name}"
    deadline = time.monotonic() + WAIT_SECONDS
    with serialized(config, deadline, undone):
        moved = 0
        while moved < TRIES:
            tip = _tip(repo, branch, undone)
            blob = repo.run("hash-object", "-w", f"--path={ref}", "--stdin", input_bytes=data)
            blob_id = blob.decode().strip()
            there = repo.run("rev-parse", "--verify", "-q", f"{tip}:{ref}", check=False)
            if there.decode().strip() == blob_id:
                return tip  # committed there already (a person's cherry-pick of it, say)
            if there.strip():
                raise MemidxError(
                    f"{name} holds another {ref} now, so {undone}",
                    f"the file is kept in this work tree: commit it yourself on {name}",
                )
            commit = _build(config, tip, ref, blob_id, subject)
            message = f"memidx: {subject}"
            repo.run("update-ref", "-m", message, branch, commit, tip, check=False)
            if _tip(repo, branch, undone) == commit:
                note = (ref, blob_id)
                return _kept_unless_checked_out(repo, branch, commit, tip, note, deadline=deadline)
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


def _kept_unless_checked_out(
    repo: GitRepo, branch: str, commit: str, tip: str, note: tuple[str, str], *, deadline: float
) -> str | None:
    """`commit`, or None once `branch` is moved back to `tip`: a `git switch` or `git worktree
    add` of it that read the tip before the update left the branch moved under that work
    tree's index, which lacked the note (`git status` there: "D" staged, for the person's next
    commit there to delete it). One that read `commit` holds the note (`note`: its path and
    blob) in its index: moved back, `git status` there said "A", the note staged for the
    person's own next commit, and it stayed pending here."""
    held_by = _holder_once_checked_out(repo, branch, deadline)
    if held_by is None or _indexed(repo, held_by, note) or _rebased_from(repo, commit):
        return commit  # a rebase that began at it builds on it: moved back, its end failed
    repo.run("update-ref", "-m", "memidx: taken back", branch, tip, commit, check=False)
    found = repo.run("rev-parse", "--verify", "-q", f"{branch}^{{commit}}", check=False)
    return None if found.decode().strip() == tip else commit  # else a commit on it followed


def _holder_once_checked_out(repo: GitRepo, branch: str, deadline: float) -> Path | None:
    """The git folder of the work tree holding `branch` (_holder), looked at once no `git
    switch`, `git checkout` or `git worktree` runs in a work tree of the clone (until
    `deadline`): one that read the branch's tip before memidx moved it writes the files and
    its index from that tip, and HEAD only after; looked at before that, the branch was left
    moved under an index without the note. Linux /proc (elsewhere that instant is not seen);
    a git started with its work tree given (`--work-tree`) rather than run in it is not seen.
    A holder found while one runs is not taken at once: `git worktree add` writes the new
    HEAD first, then its `git reset --hard` reads the tip and writes the index (an index
    looked at before that, empty, had main moved back under one the reset wrote with the
    note: `git status` there said "A")."""
    for _ in range(100_000):  # bounded by the deadline
        switching = _switching(repo)  # first: one that ends after this wrote HEAD before it
        found = _holder(repo, branch)
        if not switching or time.monotonic() >= deadline:
            return found
        time.sleep(LOCK_POLL)
    return None


def _switching(repo: GitRepo, dirs: list[Path] | None = None) -> bool:
    """Whether a git that checks a branch out runs in a work tree of the clone (this memidx's
    own callers aside: a post-checkout hook's switch); `dirs`: their git folders, read."""
    from memidx.git.publish import SWITCHING, committers, in_its_hook

    trees = work_trees(repo, dirs)
    found = committers(trees[0], SWITCHING, also=trees[1:]) if trees else {}
    return any(not in_its_hook(pid) for pid in found)


def work_trees(repo: GitRepo, dirs: list[Path] | None = None) -> list[Path]:
    """Each work tree of the clone (where a git that moves one of its branches may run);
    `dirs`: their git folders, read."""
    found: list[Path] = []
    for git_dir in git_dirs(repo) if dirs is None else dirs:
        pointer = _read(git_dir / "gitdir")  # a linked work tree's; the main one's: none
        found.append(Path(pointer).parent if pointer else git_dir.parent)
    return found


def _indexed(repo: GitRepo, git_dir: Path, note: tuple[str, str]) -> bool:
    """Whether the index of the work tree whose git folder is `git_dir` holds `note`'s blob."""
    ref, blob = note
    index = GitRepo(repo.root, index_file=str(git_dir / "index"))
    staged = index.run("ls-files", "-s", "--", ref, check=False).decode().split()
    return len(staged) > 1 and staged[1] == blob


def _rebased_from(repo: GitRepo, commit: str) -> bool:
    """Whether a work tree's rebase began at `commit` (its orig-head)."""
    heads = ("rebase-merge/orig-head", "rebase-apply/orig-head")
    return any(_read(found / name) == commit for found in git_dirs(repo) for name in heads)


def _tip(repo: GitRepo, branch: str, undone: str) -> str:
    found = repo.run("rev-parse", "--verify", "-q", f"{branch}^{{commit}}", check=False)
    if not found.strip():
        raise MemidxError(f"{branch} is gone; {undone}", "commit it yourself")
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
