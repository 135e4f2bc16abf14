"""Reading notes out of git: blobs come back whole and in order across `cat-file` batches, and
an id git does not have is an error, not an empty note."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx import gitrepo
from memidx.errors import GitError
from memidx.gitrepo import GitRepo
from tests.helpers import NotesRepo


def test_blobs_come_back_whole_and_in_order_across_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    for i in range(7):
        repo.note(f"n{i}.md", f"Note {i}", "line\n" * (i * 3000))  # up to ~90 kB: several reads
    head = repo.commit()
    git = GitRepo(repo.root)
    entries = git.tree(head, "notes")
    monkeypatch.setattr(gitrepo, "BLOB_BATCH", 3)

    blobs = list(git.read_blobs([e.blob_id for e in reversed(entries)]))

    assert [b for b, _ in blobs] == [e.blob_id for e in reversed(entries)]
    assert [data for _, data in blobs] == [
        (repo.root / e.path).read_bytes() for e in reversed(entries)
    ]


def test_a_blob_git_does_not_have_is_an_error(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("n.md", "Note", "body")
    repo.commit()

    with pytest.raises(GitError, match="cannot read blob"):
        list(GitRepo(repo.root).read_blobs(["0" * 40]))
