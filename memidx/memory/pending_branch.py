"""Which branch a pending note waits for, and what remember says of one kept for a branch HEAD
left while it was committed (split from pending_notes.py)."""

from __future__ import annotations

from memidx.config import Config


def head_branch(config: Config) -> str | None:
    """HEAD's branch (`refs/heads/<name>`), None on a detached HEAD."""
    from memidx.git.branch import head_ref
    from memidx.git.publish import DETACHED

    found = head_ref(config.root)
    return None if found == DETACHED else found


def left_for_its_branch(config: Config, ref: str, branch: str) -> str | None:
    """What `remember` says of a note kept for `branch` while HEAD is on another now (a
    `git switch` during its commit): it said "committed once that git command ends", of a note
    that waits for its branch (tests/cli/test_pending_switch.py); None when HEAD is there
    (or the branch is gone: the note is committed on the one checked out)."""
    if head_branch(config) == branch or not branch_exists(config, branch):
        return None
    name = branch.removeprefix("refs/heads/")
    return (
        f"{ref} is written but not committed yet: HEAD left {name} meanwhile (a switch, "
        f"checkout or rebase); it is kept for {name}, and committed once {name} is checked "
        "out again (by memidx's git hook after that, or the next `memidx remember` or `memidx "
        "sync` there); do not remember it again"
    )


def branch_exists(config: Config, branch: str) -> bool:
    """Whether `branch` is still there: one renamed (`git branch -m`) or deleted (merged, then
    `git branch -d`) never comes back, and a note waiting for it was never committed."""
    from memidx.git.repo import GitRepo

    if not branch.startswith("refs/heads/"):
        return False
    found = GitRepo(config.root).run("rev-parse", "--verify", "-q", branch, check=False)
    return bool(found.strip())
