"""Whether the index is behind HEAD (cheap enough for every search)."""

from __future__ import annotations

from memidx.config import Config
from memidx.git.refs import read_head, rebase_under_way, unborn_branch
from memidx.index.following import followed_now
from memidx.index.store import Store


def behind_head(config: Config, store: Store) -> str | None:
    """A warning when HEAD moved without a hook bringing the index along (a commit made
    without the hooks installed, `git reset` where only pre-commit's hooks are, a failed
    hook)."""
    if not config.in_git:
        return None
    head = read_head(config.root)
    indexed = store.get_state("indexed_commit")
    if head is None and indexed and (branch := unborn_branch(config.root)) is not None:
        head = f"branch {branch}, which has no commit yet"  # `git switch --orphan`
    elif head is None or indexed is None or head == indexed:
        return None
    else:
        head = head[:12]
    at = indexed[:12] if indexed else "no commit"
    if followed_now(config):  # a forget, remember or hook of this clone between its two steps
        return (
            f"the index is at {at} and HEAD at {head}: a memidx command of this clone moved "
            "HEAD and is bringing the index to it now (search again in a moment)"
        )
    if rebase_under_way(config.root):  # git runs no hook at its picks: no hook failed
        return (
            f"the index is at {at} but HEAD is {head}: a rebase is under way or stopped (an "
            "edit, a conflict, a break), and git runs memidx's hook only as it ends (`git "
            "rebase --continue`, `--skip`, `--abort`): run `memidx sync` to search HEAD now"
        )
    return (
        f"the index is at {at} but HEAD is {head} (a git operation no memidx hook followed, "
        "e.g. git reset where only pre-commit's hooks are installed, `git rebase --quit`, or "
        "a hook failed): run `memidx sync`"
    )
