"""How a merge, cherry-pick or rebase step judges a secret the resolution takes as committed:
it blocks only where refusing the commit keeps it in (the other side's commits no remote
has), and is a warning pointing at how to take it out everywhere else."""

from __future__ import annotations

import pytest

from memidx.git.inherited import Inherited
from memidx.githooks.inherited_check import secret_notice

LINE = "notes/k.md:5: github-token"


@pytest.mark.parametrize(
    ("operation", "pushed", "blocks", "says"),
    [
        ("", False, False, "HEAD's commits, which no remote has yet"),  # out at the next push
        ("", True, False, "history of HEAD, which a remote holds"),
        ("merge", False, True, "git merge --abort"),  # the merge takes them out
        ("merge", True, False, "which a remote holds"),
        ("cherry-pick", False, True, "take it out here"),  # the new commit brings it
        ("cherry-pick", True, False, "which a remote holds"),
        ("rebase", False, True, "take it out here"),
        ("rebase", True, False, "which a remote holds"),
    ],
)
def test_a_secret_blocks_only_where_refusing_the_commit_keeps_it_in(
    operation: str, pushed: bool, blocks: bool, says: str
) -> None:
    commit = "HEAD" if not operation else "0123456789abcdef"
    warning, blocking = secret_notice(Inherited("notes/k.md", commit, operation, pushed), [LINE])

    assert bool(blocking) is blocks and (warning is None) is blocks
    said = blocking[0] if blocking else str(warning)
    assert said.startswith((LINE, f"memidx: warning: {LINE}: not blocked")) and says in said
    if not blocks:
        assert "Forget and purge" in said
