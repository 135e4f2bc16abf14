"""Move a branch no work tree has checked out (`memidx haystack purge --branch NAME`) from the
commit it was rebuilt from, only while this clone's HEAD names another branch.

A `git switch NAME` here after the purge looked (it blanks this work tree first) left git's
index and the work tree at the old commits while the branch moved under HEAD: the forgotten
bytes staged against the rewritten HEAD, for the person's next commit. So the move is one
`git update-ref --stdin` transaction that also locks HEAD itself (`option no-deref`, `verify`:
a switch cannot end meanwhile) and, once prepared, is committed only when HEAD names another
branch and no `git switch`, `git checkout` or `git worktree` of this clone is under way (Linux
/proc), in this work tree or another (whose HEAD git cannot lock with it: a look at its HEAD,
its rebase, its index lock and its gits), and last at each process that started since that
look began (a switch that started during it: memidx.git.newcomers)."""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo


def move_branch(repo: GitRepo, ref: str, new: str, old: str, message: str) -> bool:
    """Move `ref` from `old` to `new`; False when it moved meanwhile, HEAD names it now or a
    switch is under way (nothing changed)."""
    from memidx.children import start_piped
    from memidx.git import invocation
    from memidx.git.checkouts import work_trees
    from memidx.git.newcomers import last_pid

    root = repo.root
    trees = (root, *work_trees(repo))  # the aliases a look reads: the first work tree's
    invocation.prime(*trees)  # the aliases a look wanted, read before the branch's lock
    git_dir = Path(repo.run("rev-parse", "--absolute-git-dir").decode().strip())
    head = repo.head()
    lines = f"start\nupdate {ref} {new} {old}\n"
    lines += f"option no-deref\nverify HEAD {head}\n" if head else ""
    with start_piped(["git", "update-ref", "-m", message, "--stdin"], root) as git:
        assert git.stdin is not None and git.stdout is not None  # both are pipes
        moved = False
        try:
            git.stdin.write(f"{lines}prepare\n")
            git.stdin.flush()
            if git.stdout.readline().strip() == "start: ok" and (
                git.stdout.readline().strip() == "prepare: ok"
            ):
                since = last_pid()  # a switch that starts during the look is looked at last
                with invocation.holding(*trees):  # no `git config` run under the locks
                    free = _nowhere_else(repo, git_dir, ref) and not arrived_since(repo, since)
                git.stdin.write("commit\n" if free else "abort\n")
                git.stdin.flush()
                moved = free and git.stdout.readline().strip() == "commit: ok"
        except BrokenPipeError:  # git ended: it refused the update
            pass
        finally:
            try:  # an uncommitted transaction ends with git's input
                git.communicate()
            except BrokenPipeError:  # it had ended already
                git.wait()
    return moved


def move_when_free(
    repo: GitRepo, ref: str, new: str, old: str, message: str, *, until: float
) -> bool:
    """move_branch, tried again while a switch is under way or HEAD's lock is held a moment
    (until `until`); False once `ref` moved on or a work tree has it checked out, or at
    `until` (memidx.git.side_commit's commit of a pending note on its branch)."""
    import time

    from memidx.git.checkouts import LOCK_POLL, holding

    for _ in range(100_000):  # bounded by `until`
        if move_branch(repo, ref, new, old, message):
            return True
        tip = repo.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
        if tip.decode().strip() != old or holding(repo.root, ref) or time.monotonic() >= until:
            return False
        time.sleep(LOCK_POLL)
    return False


def arrived_since(repo: GitRepo, since: int | None) -> bool:
    """Whether a git that checks a branch out (or a fork not exec'd yet) started in a work tree
    of the clone since `since` (memidx.git.newcomers): the look passed it, it read the branch."""
    from memidx.git.checkouts import work_trees
    from memidx.git.newcomers import arrived
    from memidx.git.publish import SWITCHING

    trees = work_trees(repo)
    return bool(trees) and arrived(trees[0], since, SWITCHING, also=tuple(trees[1:]))


def _nowhere_else(repo: GitRepo, git_dir: Path, ref: str) -> bool:
    """Whether no work tree of the clone has `ref` checked out or is rebasing it, and none
    runs a `git switch` (memidx.git.checkouts.in_use; without /proc, another work tree's
    index held counts as a switch checking out its files). Looked at once the branch's lock is
    taken: git's update-ref cannot lock another work tree's HEAD. A rebase of the branch begun
    since the purge looked (HEAD detached, its name in rebase-merge/) failed at its end, the
    branch moved under it ("cannot lock ref ... is at X but expected Y")."""
    from memidx.git.checkouts import git_dirs, in_use

    if in_use(repo, ref):
        return False
    if Path("/proc/self").is_dir():  # where gits cannot be seen, any index lock is a switch's
        return True
    here = git_dir.resolve()
    return not any((d / "index.lock").exists() for d in git_dirs(repo) if d.resolve() != here)
