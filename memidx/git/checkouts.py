"""Which work tree of a clone holds a branch: checked out, being rebased, or being checked out
by a `git switch` running now (Linux /proc). A commit on a branch from another work tree went
under that work tree's index (memidx.git.side_commit, memidx.git.branch_move)."""

from __future__ import annotations

import time
from pathlib import Path

from memidx.git.repo import GitRepo

LOCK_POLL = 0.05  # seconds between looks at a `git switch` that runs


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


def once_checked_out(repo: GitRepo, branch: str, deadline: float) -> Path | None:
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


def rebased_from(repo: GitRepo, commit: str) -> bool:
    """Whether a work tree's rebase began at `commit` (its orig-head)."""
    heads = ("rebase-merge/orig-head", "rebase-apply/orig-head")
    return any(_read(found / name) == commit for found in git_dirs(repo) for name in heads)
