"""Move a branch no work tree has checked out (`memidx haystack purge --branch NAME`) from the
commit it was rebuilt from, only while this clone's HEAD names another branch.

A `git switch NAME` here after the purge looked (it blanks this work tree first) left git's
index and the work tree at the old commits while the branch moved under HEAD: the forgotten
bytes staged against the rewritten HEAD, for the person's next commit. So the move is one
`git update-ref --stdin` transaction that also locks HEAD itself (`option no-deref`, `verify`:
a switch cannot end meanwhile) and, once prepared, is committed only when HEAD names another
branch and no `git switch` or `git checkout` of this clone is under way (Linux /proc), in
this work tree or another (whose HEAD git cannot lock with it: a look at its HEAD, its index
lock and its gits)."""

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
                free = free and _nowhere_else(git_dir, ref)
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


def _nowhere_else(git_dir: Path, ref: str) -> bool:
    """Whether no other work tree of the clone has `ref` checked out or runs a `git switch`
    (without /proc: holds its index, as a switch checking out its files does). A switch in a
    linked work tree after the purge looked had the branch moved under that HEAD: git's
    update-ref cannot lock another work tree's HEAD, so this is a look, once the branch's lock
    is taken."""
    from memidx.git.publish import committers, head_names

    try:
        pointer = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        pointer = ""
    common = (git_dir / pointer).resolve() if pointer else git_dir.resolve()
    linked = [head.parent for head in sorted(common.glob("worktrees/*/HEAD"))]
    seen = Path("/proc/self").is_dir()  # where gits cannot be seen, any index lock is a switch's
    for folder in (folder for folder in [common, *linked] if folder != git_dir.resolve()):
        root = _work_tree_of(folder, common)
        if root is None:
            continue  # a bare repository's own HEAD: nothing is checked out there
        if head_names(folder) == ref or (not seen and (folder / "index.lock").exists()):
            return False
        if committers(root, SWITCHING):
            return False
    return True


def _work_tree_of(folder: Path, common: Path) -> Path | None:
    """The work tree of a git folder: a linked one's `gitdir` file's, the main one's parent
    (None for a bare repository)."""
    from memidx.git.process import run_process
    from memidx.git.repo import git_env

    if folder == common:
        argv = ["git", f"--git-dir={common}", "config", "--bool", "core.bare"]
        bare = run_process(argv, git_env(), b"").stdout.strip() == b"true"
        return None if bare else common.parent
    try:
        return Path((folder / "gitdir").read_text(encoding="utf-8").strip()).parent
    except (OSError, ValueError):
        return None
