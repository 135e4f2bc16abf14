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


def left_for_its_branch(
    config: Config, ref: str, branch: str, waits: str | None = None
) -> str | None:
    """What `remember` says of a note kept for `branch` while HEAD is on another now (a
    `git switch` during its commit): it said "committed once that git command ends", of a note
    that waits for its branch (tests/cli/test_pending_switch.py); None when HEAD is there
    (or the branch is gone: the note is committed on the one checked out). `waits`: why its
    commit there did not land (pending_elsewhere.not_landed)."""
    if head_branch(config) == branch or not branch_exists(config, branch):
        return None
    name = branch.removeprefix("refs/heads/")
    left = f"HEAD left {name} meanwhile (a switch, checkout or rebase)"
    later = (
        f"it is kept for {name}, and committed on it without checking it out by memidx's next "
        "git hook, `memidx remember` or `memidx sync` here"
    )
    why = waits or held_elsewhere(config, branch) or later
    import os

    kept = "written" if os.path.lexists(config.root / ref) else "kept (no file yet)"
    return f"{ref} is {kept} but not committed yet: {left}; {why}; do not remember it again"


def held_elsewhere(config: Config, branch: str) -> str | None:
    """Why a note of `branch` waits while another work tree holds it, and what commits it;
    None when none does. It said "committed once main is checked out here", which git refuses
    while another work tree has it checked out."""
    from shlex import quote

    from memidx.git.checkouts import holding

    name, held = branch.removeprefix("refs/heads/"), holding(config.root, branch)
    if held is None:
        return None
    there, rebasing = held
    how = "is being rebased" if rebasing else "is checked out"
    # the clone's main work tree (a .git folder, not a file) is never removed by git
    remove = f", or `git worktree remove {quote(str(there))}`" if (there / ".git").is_file() else ""
    return (
        f"its branch, {name}, {how} in another work tree ({there}), whose index a commit "
        f"from here would not follow: it waits, and once {name} is neither checked out nor "
        f"rebased there (a `git switch` there{remove}), the next `memidx sync` (or "
        f"`remember`, or a git hook) here commits it on {name}"
    )


def branch_exists(config: Config, branch: str) -> bool:
    """Whether `branch` is still there: one renamed (`git branch -m`) or deleted (merged, then
    `git branch -d`) never comes back, and a note waiting for it was never committed."""
    from memidx.git.repo import GitRepo

    if not branch.startswith("refs/heads/"):
        return False
    found = GitRepo(config.root).run("rev-parse", "--verify", "-q", branch, check=False)
    return bool(found.strip())
