"""Whether HEAD holds the writer's open segment is asked of git once per HEAD commit, not at
every filing: each filing is a new process (an agent's Stop hook), which ran `git cat-file -s`
before every append while the segment was not committed. Real git, no hooks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memidx.config import Config
from memidx.git.repo import GitRepo
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import new_record
from memidx.index.ownership import keep_out_of_git
from tests.helpers import NotesRepo


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The `git cat-file` commands memidx runs from now on."""
    asked: list[tuple[str, ...]] = []
    run = GitRepo.run

    def counted(self: GitRepo, *args: str, **kwargs: Any) -> Any:
        if args[:1] == ("cat-file",):
            asked.append(args)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run", counted)
    return asked


def test_filings_at_one_head_ask_git_once_and_a_commit_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    asked = _counted(monkeypatch)
    for n in range(5):  # five filings, each with a writer of its own, as five processes
        path, _, _ = clone_writer(config).append(new_record("turn", f"turn {n} of the heron"))
        assert path == first
    assert len(asked) == 1, asked
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the segment, by plain git")
    later, _, _ = clone_writer(config).append(new_record("turn", "after the commit"))
    assert later != first and len(asked) == 2  # a new HEAD: asked again, never appended to
    again, _, _ = clone_writer(config).append(new_record("turn", "one more turn"))
    assert again == later and len(asked) == 3  # the new segment, at this HEAD: asked once


def test_a_memory_with_no_commit_yet_asks_git_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    NotesRepo(tmp_path)  # `git init`: no commit yet
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    asked = _counted(monkeypatch)
    for n in range(3):
        assert clone_writer(config).append(new_record("turn", f"turn {n}"))[0] == first
    assert asked == []
