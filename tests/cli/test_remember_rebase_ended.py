"""A rebase that ends between remember's wait for it (memidx.git.branch.on_a_branch, which
found it running) and its look for the branch it rewrites (rebased_branch, which finds none
now): the note was refused, "a rebase is under way", with HEAD back on its branch. It is
committed on that branch now."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.git import branch as git_branch
from memidx.memory import answer_by
from tests.helpers import started_memory


def test_a_rebase_ended_between_the_two_looks_refuses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    looks: list[str] = []

    def ended_after_the_first_look(root: Path, undone: str, *, wait: float = 0.0) -> str:
        looks.append(undone)
        if len(looks) == 1:  # what it saw then: the rebase still running
            raise MemidxError(f"a rebase is under way (HEAD is detached), so {undone}", "later")
        return git_branch.on_a_branch(root, undone, wait=wait)

    monkeypatch.setattr(answer_by, "on_a_branch", ended_after_the_first_look)
    config = load_config(repo.root, env={})
    found = answer_by.branch_for(config, "the note was not written", time.monotonic() + 3.0)
    assert found == ("refs/heads/main", False)
    with pytest.raises(MemidxError):  # the command line (no answer time) refuses as it did
        looks.clear()
        answer_by.branch_for(config, "the note was not written", None)
