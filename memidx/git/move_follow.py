"""What follows HEAD's move while memidx holds `.git/index.lock` (memidx.git.publish.move_head):
git's index brought to the new commit, and the lock let go."""

from __future__ import annotations

from pathlib import Path

from memidx.git import move_trace as trace
from memidx.git.index_swap import Gone, Prepared
from memidx.git.move_script import copy_index, let_go


def follow_move(
    root: Path, git_dir: Path, token: str, copied: tuple[Prepared | None, Gone], fast: bool
) -> None:
    """Once HEAD moved (index.lock memidx's, HEAD's let go): the READY copy renamed over git's
    index and the lock let go (the shell finds it not its own: done), else git's index copied
    for the git command the shell runs once update-ref ended."""
    from memidx.git.index_swap import swap

    prepared, gone = copied
    if fast and prepared and swap(root, git_dir, prepared[1], gone):
        let_go(git_dir, token)
        trace.mark("let-go")
    else:
        copy_index(git_dir)
