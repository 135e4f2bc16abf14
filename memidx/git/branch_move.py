"""Move a branch no work tree has checked out (`memidx haystack purge --branch NAME`) from the
commit it was rebuilt from, only while this clone's HEAD names another branch.

A `git switch NAME` here after the purge looked (it blanks this work tree first) left git's
index and the work tree at the old commits while the branch moved under HEAD: the forgotten
bytes staged against the rewritten HEAD, for the person's next commit. So the move is one
`git update-ref --stdin` transaction that also locks HEAD itself (`option no-deref`, `verify`:
a switch cannot end meanwhile) and, once prepared, is committed only when HEAD names another
branch and no `git switch` or `git checkout` of this clone is under way (Linux /proc)."""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo

SWITCHING = frozenset({"switch", "checkout"})


def move_branch(repo: GitRepo, ref: str, new: str, old: str, message: str) -> bool:
    """Move `ref` from `old` to `new`; False when it moved meanwhile, HEAD names it now or a
    switch is under way (nothing changed)."""
    from memidx.children import start_piped
    from memidx.git.publish import committers, head_names

    root = repo.root
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
                free = head_names(git_dir) != ref and not committers(root, SWITCHING)
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
