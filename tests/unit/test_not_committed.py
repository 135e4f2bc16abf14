"""The error of a memidx commit of several paths says they `were` not committed (it said `was`
for any number), and git status shows `them` staged for deletion, not `it`. Real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.errors import IndexLockLeft
from memidx.git.commit import commit_paths
from memidx.git.commit_error import commit_error
from tests.helpers import NotesRepo


@pytest.mark.parametrize(
    ("paths", "said"),
    [
        (["notes/a.md"], "notes/a.md was not committed"),
        (["notes/a.md", "notes/b.md"], "notes/a.md, notes/b.md were not committed"),
    ],
)
def test_a_lock_left_names_the_paths_with_their_verb(
    tmp_path: Path, paths: list[str], said: str
) -> None:
    repo = NotesRepo(tmp_path)
    for path in paths:
        repo.write(path, "# A note\n\nwords\n")
    (tmp_path / ".git" / "index.lock").write_text("left by a git that was killed")
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    with pytest.raises(IndexLockLeft) as caught:
        commit_paths(config, paths, "two notes", wait=0.5)
    assert f"(no running process holds it); {said} (" in str(caught.value)


@pytest.mark.parametrize(
    ("stderr", "said"),
    [
        ("fatal: Unable to create '/x/.git/index.lock': File exists.", "locked; a, b were not"),
        ("Please tell me who you are", "so a, b were not committed"),
        ("error: something else", "a, b were not committed: error: something else"),
    ],
)
def test_git_s_failure_names_several_paths_with_were(stderr: str, said: str) -> None:
    assert said in str(commit_error(stderr, ["a", "b"]))
    assert said.replace("a, b were", "a was") in str(commit_error(stderr, ["a"]))
