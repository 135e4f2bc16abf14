"""The start of `memidx share`: the pending notes and the haystack committed, once the branch
is known to have an upstream to share with (refused before any commit otherwise). Split from
memidx.memory.share."""

from __future__ import annotations

from collections.abc import Callable

from memidx.config import Config
from memidx.memory.share_git import run_git as _git
from memidx.memory.share_merge import no_upstream, tracked_branch, tracking


def committed(
    config: Config, before: Callable[[], None] | None, say: Callable[[str], None] | None
) -> tuple[str | None, list[str], str, str, str]:
    """The haystack committed (after `before`) once the branch is known to have an upstream:
    the commit, the clone's remotes, the branch, its remote and the ref there."""
    from memidx.git.branch import on_a_branch
    from memidx.haystack.segment_commit import commit_haystack
    from memidx.index.following import following
    from memidx.memory.head_sync import after_commit

    # from a HEAD move of its own (memidx.head_move), not through the waits before it
    with following(config, at_the_move=True):
        if before is not None:
            _followed(config, before, say)
        remotes = _git(config, "remote").stdout.split()
        here, remote, branch = tracking(config)  # the branch share merges into and pushes
        # refused before the haystack is committed: a commit on a local branch left the
        # segments at the switch back (a detached HEAD, a stopped rebase's, is said first)
        if remotes and (not remote or not branch):  # git's merge and push would say so too
            on_a_branch(config.root, "the haystack was not committed")
            named = "origin" if "origin" in remotes else remotes[0]
            raise no_upstream(named, tracked_branch(config, named))
        commit = commit_haystack(config, say)
        if commit is not None or not remotes:
            after_commit(config, say)
    return commit, remotes, here, remote, branch


def _followed(config: Config, step: Callable[[], None], say: Callable[[str], None] | None) -> None:
    """`step` (the pending notes' commits), the index brought to any commit it made: only a
    merge's did, and a refusal or a failed fetch after it left the index behind them."""
    from memidx.git.refs import read_head
    from memidx.memory.head_sync import after_commit

    head = read_head(config.root)
    step()
    if read_head(config.root) != head:
        after_commit(config, say)
