"""The places `memidx haystack purge` is asked to rewrite beside HEAD: the branches
(`--branch NAME`) and the clone's other work trees (`--work-tree PATH`) named. Each must exist
(else an error, whether or not anything is forgotten) and be safe to rewrite now (a
branch another work tree has checked out moves only with that work tree; a rebase under way
is never rewritten), checked before anything changes."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from memidx.config import Config
from memidx.errors import MemidxError, UsageError
from memidx.git.tips import HEADS, Tip, WorkTree, unlinked
from memidx.haystack.held import Held, printable, shell_quote, work_tree_command

if TYPE_CHECKING:
    from memidx.git.repo import GitRepo

LOCKED_WAIT = 2.0  # seconds a purge waits for git while it holds a writer's lock


@contextmanager
def quiet_then(config: Config, lock: Callable[[], AbstractContextManager[None]]) -> Generator[None]:
    """The writer's `lock`, taken once the clone's git lets go (WAIT_SECONDS at most): a purge
    then waits LOCKED_WAIT at most under it. It waited 10 s for git under the lock, up to
    three times, and every filing of the clone waited behind it (a hook past its deadline). A
    git begun while the lock was waited for (a filing held it) is waited for again, the lock
    let go, within the same WAIT_SECONDS: the purge refused ("try again") after LOCKED_WAIT."""
    import time

    from memidx.git.commit import WAIT_SECONDS
    from memidx.git.underway import git_holds, quiet_by

    deadline = time.monotonic() + WAIT_SECONDS
    for _ in range(100):  # bounded by the deadline; the count only bounds the loop
        if config.in_git:
            quiet_by(config.root, deadline)
        with lock():
            if not config.in_git or time.monotonic() > deadline or not git_holds(config.root):
                yield
                return
    with lock():  # never reached but by a git that begins again and again: as the deadline
        yield


def named_work_trees(
    config: Config, branches: Sequence[str], work_trees: Sequence[str]
) -> list[WorkTree]:
    """UsageError for a `--branch` that is no branch name, MemidxError for one that names no
    local branch or a `--work-tree` that is no work tree of the clone; the other work trees
    named (this one aside)."""
    from memidx.git.repo import GitRepo
    from memidx.git.tips import this_work_tree
    from memidx.git.tips import work_trees as listed

    if not config.in_git and (branches or work_trees):
        raise UsageError(f"{config.root} is not a git repository", "--branch and --work-tree "
                         "name its branches and work trees")  # fmt: skip
    if not config.in_git:
        return []
    repo = GitRepo(config.root)
    for branch in branches:
        ref = branch_ref(branch)
        # the ref itself: rev-parse would take `main^` or `main@{1}`, which name no branch
        if not _branch_name(repo, branch, ref):
            raise UsageError(f"--branch {printable(branch)} is no branch name", BRANCHES_LISTED)
        if repo.run("show-ref", "--verify", "--", ref, check=False) == b"":
            raise MemidxError(f"no local branch {printable(branch)}", BRANCHES_LISTED)
    trees = listed(repo)
    here = this_work_tree(repo, trees)
    others: list[WorkTree] = []
    for path in work_trees:
        wanted = Path(path).resolve()
        tree = next((t for t in trees if Path(t.path).resolve() == wanted), None)
        if tree is None:  # a path is well formed: it names nothing here (as show's refs, 1)
            raise MemidxError(
                f"--work-tree {printable(path)}: no work tree of this clone",
                "`git worktree list` lists them",
            )
        if tree.gone and tree.locked:
            raise MemidxError(
                locked_and_missing(f"--work-tree {printable(path)}"), unlock(tree.path)
            )
        if tree.gone:
            raise MemidxError(
                f"--work-tree {printable(path)}: its folder is gone; nothing was purged",
                "run: git worktree prune (git then forgets it)",
            )
        if unlinked(tree.path):
            raise MemidxError(
                f"--work-tree {printable(path)}: its .git file is missing, so git no longer "
                "knows the folder as a work tree; nothing was purged",
                "run: git worktree repair (git writes the file again), then purge again",
            )
        if tree.path != here and tree not in others:
            others.append(tree)
    return others


BRANCHES_LISTED = "`git branch` lists them"


def _branch_name(repo: GitRepo, branch: str, ref: str) -> bool:
    """Whether `branch` is a name git would give a branch (`main^`, `main@{1}`, `HEAD` and
    `-x` are not): one that is names nothing when no such branch exists (exit 1), one that
    is not is a usage error (2), as for the refs `show` and `forget` take."""
    if branch in ("HEAD", HEADS + "HEAD") or branch.startswith("-"):
        return False
    return repo.run("check-ref-format", "--normalize", ref, check=False).strip() == ref.encode()


def refuse_under_way(trees: Sequence[WorkTree]) -> None:
    """MemidxError for a work tree named while a rebase, or a merge, cherry-pick, revert or
    bisect that stopped for the person, is under way there: its HEAD is theirs until it ends."""
    from memidx.git.tips import operation_under_way

    for tree in trees:
        command = "rebase" if tree.mid_rebase else None
        if command is None and not tree.gone:
            command = operation_under_way(tree.path)
        if command is not None:
            raise MemidxError(
                f"a {command} is under way in {printable(tree.path)}: memidx never moves a "
                "work tree's HEAD under it; nothing was purged",
                ending(command),
            )


def ending(command: str) -> str:
    """How the person ends the git `command` under way, before purging again."""
    how = "git bisect reset" if command == "bisect" else f"git {command} --continue, or --abort"
    return f"end it there ({how}), then purge again"


def branch_ref(branch: str) -> str:
    """The ref of a branch `--branch` names, by its short name or its full ref."""
    return branch if branch.startswith(HEADS) else f"{HEADS}{branch}"


def named_branches(tips: Sequence[Tip], branches: Sequence[str]) -> list[Tip]:
    """The tips of the local branches named (each exists: `named_work_trees`), none checked out in
    another work tree or being rebased (the one HEAD is on is rewritten as HEAD)."""
    named: list[Tip] = []
    for branch in branches:
        ref = branch_ref(branch)
        tip = next((t for t in tips if t.name == ref), None)
        if tip is None:  # deleted since it was checked
            raise MemidxError(f"no local branch {printable(branch)}", BRANCHES_LISTED)
        if tip.rebasing:
            raise MemidxError(
                f"{ref} is being rebased in {printable(tip.checked_out or '')}: memidx never "
                "rewrites a rebase under way; nothing was purged",
                ending("rebase"),
            )
        if tip.here:
            continue
        if tip.gone and tip.locked:
            where = printable(tip.checked_out or "")
            raise MemidxError(
                locked_and_missing(f"{ref} is checked out in {where}, which"),
                unlock(tip.checked_out or ""),
            )
        if tip.gone:
            raise MemidxError(
                f"{ref} is checked out in {printable(tip.checked_out or '')}, which is gone; "
                "nothing was purged",
                "run: git worktree prune, then purge again",
            )
        if tip.checked_out:
            raise MemidxError(
                f"{ref} is checked out in {printable(tip.checked_out)}: memidx moves it only "
                "with that work tree; nothing was purged",
                f"run: {work_tree_command(tip.checked_out)}",
            )
        named.append(tip)
    return named


def locked_and_missing(what: str) -> str:
    """The message for a work tree git keeps locked whose folder is missing."""
    return f"{what} is locked and its folder is missing (a drive not mounted?); nothing was purged"


def unlock(path: str) -> str:
    """What to do about the locked work tree at `path` whose folder is missing: `git worktree
    prune` leaves it until it is unlocked."""
    return (
        "mount it and purge again; if it is gone for good, run: "
        f"git worktree unlock {shell_quote(path)} && git worktree prune"
    )


def work_tree_config(path: str) -> Config:
    """The configuration a purge run in the clone's work tree at `path` would have: its own
    pyproject.toml's `[tool.memidx]` (its branch may keep its notes or its index elsewhere)
    and this process's environment. ConfigError naming the work tree when it cannot be read."""
    from memidx.config import load_config
    from memidx.errors import ConfigError

    try:
        return load_config(Path(path))
    except ConfigError as failed:
        raise ConfigError(
            f"--work-tree {printable(path)}: {failed.message}; nothing was purged", failed.hint
        ) from failed


def clone_writer_lock(config: Config) -> AbstractContextManager[None]:
    """The lock of the work tree's writer (memidx.haystack.clone_writer), taken without
    making a writer there: a purge never files a record. A `.memidx/` made for it is marked
    (PURGE_MARK), so that the work tree is no memory of its own for it."""
    from memidx.config import PURGE_MARK
    from memidx.haystack.writer import held_lock
    from memidx.index.ownership import keep_out_of_git

    made = not config.state_dir.exists()
    keep_out_of_git(config.state_dir)
    if made:
        (config.state_dir / PURGE_MARK).write_text(
            "memidx haystack purge --work-tree made this folder for its locks\n"
        )
    return quiet_then(config, lambda: held_lock(config.state_dir / "haystack.lock"))


def unreached(held: list[Held], failed: str, after: Sequence[str]) -> list[Held]:
    """The held places of the work tree named whose purge failed, and of those named after it
    that the purge never reached, each saying so (not that it was not named)."""
    from memidx.frozen import replace

    why = {
        work_tree_command(failed): f"the purge of {printable(failed)} failed: the error below "
        "says why"
    }
    why |= {
        work_tree_command(p): f"the purge stopped at {printable(failed)}, before {printable(p)}"
        for p in after
    }
    return [replace(h, why=why[h.run]) if h.run in why else h for h in held]
