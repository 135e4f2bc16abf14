"""Whether memidx may commit here: never on a detached HEAD, whose commit the next `git switch`
would leave behind."""

from __future__ import annotations

import time
from pathlib import Path

from memidx.errors import MemidxError
from memidx.git.repo import GitRepo

REBASING = frozenset({"rebase", "pull"})  # a git of the clone running the rebase (not stopped)
PROC = Path("/proc/self")  # where memidx sees the gits that run (Linux)
REBASE_WAIT = 10.0  # seconds `remember` waits for it, as for any other git of the clone


def head_ref(root: Path) -> str:
    """What HEAD names now, for a commit meant for it (`branch=` of memidx.git.commit):
    its branch (refs/heads/<name>), or DETACHED."""
    from memidx.git.publish import DETACHED

    return GitRepo(root).run("symbolic-ref", "-q", "HEAD", check=False).decode().strip() or DETACHED


def on_a_branch(root: Path, undone: str, *, wait: float = 0.0) -> str:
    """Refuse a commit on a detached HEAD: the next `git switch` leaves it behind, and git
    takes its files off the disk (a remembered note is gone, a forgotten one is back). In a
    rebase stopped on a conflict HEAD is detached too, and `git rebase --abort` drops it.
    A rebase still running (`git pull --rebase`) is waited for up to `wait` seconds: a
    `remember` in its second was refused, told to `git rebase --continue (or --abort)` a
    rebase no one needed to finish. Returns the branch (`refs/heads/<name>`)."""
    repo = GitRepo(root)
    branch = repo.run("symbolic-ref", "-q", "HEAD", check=False).decode().strip()
    if branch:
        return branch
    paths = repo.run("rev-parse", "--path-format=absolute", "--git-path", "rebase-merge",
                     "--git-path", "rebase-apply").decode().splitlines()  # fmt: skip
    folders = [Path(path) for path in paths if Path(path).is_dir()]
    # a running rebase first: `git rebase --apply` writes no head-name until it stops, and
    # one running was said to be a folder git left, with `rm -r` of it for a hint
    if folders and wait > 0 and _ended(root, time.monotonic() + wait):
        return on_a_branch(root, undone)  # on its branch again, or stopped on a conflict
    if folders and _running(root):
        raise MemidxError(
            f"a rebase is under way (HEAD is detached), so {undone}",
            "try again once that git command ends",
        )
    if folders and not (folders[0] / "head-name").is_file():
        raise _broken_rebase(folders[0], undone, unseen=not PROC.is_dir())
    if folders:
        raise MemidxError(
            f"a rebase is in progress (HEAD is detached), so {undone}",
            "finish it with git rebase --continue (or git rebase --abort), then try again",
        )
    raise MemidxError(
        f"HEAD is detached: a commit here would be left behind, so {undone}",
        "check out a branch first (git switch -c <name> keeps this commit)",
    )


def rebased_branch(root: Path) -> str | None:
    """The branch (refs/heads/<name>) a rebase a git of the clone runs now rewrites, read from
    its head-name; None when none runs, or it names none (`git rebase --apply` until it
    stops, a rebase of a detached HEAD)."""
    repo = GitRepo(root)
    paths = repo.run("rev-parse", "--path-format=absolute", "--git-path", "rebase-merge",
                     "--git-path", "rebase-apply").decode().splitlines()  # fmt: skip
    for folder in (Path(path) for path in paths):
        try:
            name = (folder / "head-name").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if name.startswith("refs/heads/") and _running(root):
            return name
    return None


def _broken_rebase(folder: Path, undone: str, *, unseen: bool = False) -> MemidxError:
    """A rebase folder without its head-name, which `git pull --rebase --autostash` leaves when
    it stops as it starts ("cannot rebase: You have unstaged changes"): `git rebase --abort` and
    `--continue` both fail on it ("could not read .../head-name"), so the usual hint was one no
    one could follow. What to do is the person's: memidx only says it. Where gits cannot be
    seen (`unseen`: no /proc), a `git rebase --apply` folder may be one running, which names
    its branch only when it stops: said so first (its folder was called one git left)."""
    from shlex import quote

    if unseen and (folder / "rebasing").is_file():
        return MemidxError(
            f"a rebase is under way or was killed (HEAD is detached, {folder} has no "
            f"head-name yet), so {undone}",
            "try again once that git command ends; if no git runs, git left the folder: "
            f"rm -r {quote(str(folder))}, git switch <your branch>, and try again",
        )
    stash = folder / "autostash"
    keep = f"git stash apply $(cat {quote(str(stash))}), then " if stash.is_file() else ""
    return MemidxError(
        f"git left a rebase folder it cannot finish or abort ({folder} has no head-name), so "
        f"{undone}",
        f"if no rebase of yours is under way: {keep}rm -r {quote(str(folder))}, "
        "git switch <your branch>, and try again",
    )


def _running(root: Path) -> bool:
    """Whether a git of the clone runs a rebase now (Linux /proc; elsewhere never known)."""
    from memidx.git.publish import committers

    return bool(committers(root, REBASING))


def _ended(root: Path, deadline: float) -> bool:
    """Whether a rebase running now ends by `deadline` (False when none runs)."""
    if not _running(root):
        return False
    for _ in range(10_000):  # bounded by the deadline; the count only bounds the loop
        time.sleep(0.05)
        if not _running(root):
            return True
        if time.monotonic() > deadline:
            break
    return False
