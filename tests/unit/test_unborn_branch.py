"""HEAD on a branch with no commit yet (`git switch --orphan`), read from .git's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.git.refs import unborn_branch

COMMIT = "a" * 40


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"HEAD": "ref: refs/heads/fresh\n"}, "fresh"),
        ({"HEAD": "ref: refs/heads/main\n", "refs/heads/main": COMMIT}, None),
        ({"HEAD": "ref: refs/heads/main\n", "packed-refs": f"{COMMIT} refs/heads/main\n"}, None),
        ({"HEAD": COMMIT}, None),  # detached
        ({"HEAD": "ref: refs/heads/.invalid\n", "reftable/tables.list": ""}, None),  # unknown
    ],
)
def test_an_unborn_branch_is_named_and_anything_else_is_not(
    tmp_path: Path, files: dict[str, str], expected: str | None
) -> None:
    for name, text in files.items():
        (tmp_path / ".git" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / ".git" / name).write_text(text)
    assert unborn_branch(tmp_path) == expected


def test_a_linked_work_tree_s_unborn_branch_is_read_through_its_common_dir(
    tmp_path: Path,
) -> None:
    common = tmp_path / "main" / ".git"
    own = common / "worktrees" / "wt"
    own.mkdir(parents=True)
    (own / "HEAD").write_text("ref: refs/heads/fresh\n")
    (own / "commondir").write_text("../..\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {own}\n")
    assert unborn_branch(tmp_path / "wt") == "fresh"
    (common / "refs" / "heads").mkdir(parents=True)
    (common / "refs" / "heads" / "fresh").write_text(COMMIT)
    assert unborn_branch(tmp_path / "wt") is None
    assert unborn_branch(tmp_path / "nowhere") is None
