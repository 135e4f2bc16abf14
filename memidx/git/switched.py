"""What memidx says when a `git switch` took HEAD off the branch a commit was meant for
(split from commit.py)."""

from __future__ import annotations

from pathlib import Path

from memidx.errors import GitError, SwitchedAway


def switched_away(git_dir: Path, meant: str | None, undone: str) -> SwitchedAway:
    """SwitchedAway (a GitBusy) naming the branch a commit was meant for (`meant`:
    refs/heads/<name>, or DETACHED) and the one a `git switch` took HEAD to meanwhile, in one
    line."""
    from memidx.git.publish import head_names

    there, back = _short(head_names(git_dir)), _short(meant)
    if there == back:  # seen switched at the move, back by this look (a switch, and back)
        return SwitchedAway(
            f"HEAD left {_it(back)} meanwhile, and is {_on(there)} again now (a git switch or "
            f"checkout, and back); {undone}",
            "try again" if there else "check out a branch, then try again",
        )
    ways = [f"to do it on {there}, try again"] if there else []
    ways += [f"to do it on {back}, git switch {back}, then try again"] if back else []
    return SwitchedAway(
        f"HEAD is {_on(there)} now, not {_on(back)} as when this began (a git switch or "
        f"checkout meanwhile); {undone}",
        "; ".join(ways) or "check out a branch, then try again",
    )


def refuse_a_switch(
    git_dir: Path, meant: str | None, undone: str, *, at: str | None = None
) -> None:
    """switched_away's GitBusy when HEAD names another branch than `meant` (when given), or
    `meant`'s tip is not `at` (when given: the commit memidx built on, read as HEAD). A switch
    and back between the look at HEAD and this one had memidx build on the other branch's tip,
    change nothing there, and say the note was forgotten "as <that tip>", nothing committed."""
    from memidx.git.publish import DETACHED, head_names

    if meant is None:
        return
    if (head_names(git_dir) or DETACHED) != meant:
        raise switched_away(git_dir, meant, undone)
    if at is not None and meant != DETACHED and _tip(git_dir, meant) != at:
        raise switched_away(git_dir, meant, undone)


def _tip(git_dir: Path, branch: str) -> str:
    import subprocess

    from memidx.git.repo import git_env

    argv = ["git", f"--git-dir={git_dir}", "rev-parse", "-q", "--verify", f"{branch}^{{commit}}"]
    done = subprocess.run(argv, env=git_env(), capture_output=True, check=False)
    return done.stdout.decode("ascii", "replace").strip()


def _short(ref: str | None) -> str | None:
    """`main` for refs/heads/main; None for a detached HEAD."""
    from memidx.git.publish import DETACHED

    return None if ref is None or ref == DETACHED else ref.removeprefix("refs/heads/")


def _on(branch: str | None) -> str:
    return "detached" if branch is None else f"on {branch}"


def _it(branch: str | None) -> str:
    return "the detached HEAD" if branch is None else branch


def not_taken_out(done: str, failed: dict[str, str]) -> GitError:
    """GitError for the notes a switch took along to another branch's work tree that memidx
    could not take out again (`failed`: each with git's words, or its index held past the
    wait): what stays there, as it was, and how to take it out by hand."""
    from shlex import quote

    path, why = next(iter(failed.items()))
    more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
    paths = " ".join(quote(p) for p in failed)
    return GitError(
        f"{done}, but a git switch meanwhile took {path}{more} along to this work tree, and "
        f"taking it out failed ({why}), so it stays here as it was",
        f"once that is fixed: `git rm -q --cached --ignore-unmatch -- {paths}`, then remove "
        "the file unless you want that note on this branch too (it is the note as committed)",
    )
