"""A note's commit that landed on its branch, then a git that started with it still runs
(memidx.git.late's StillUnderWay): the note is committed, said so with a warning, and its
entry stays so the next hook, `remember` or `memidx sync` checks it once that git ends. A new
note's `remember` said "not committed" (exit 1) and dropped the entry; a pending one was left
pending, `commit` null, for a note HEAD held."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as git_commit
from memidx.git.late import StillUnderWay
from memidx.memory import pending_finisher
from memidx.memory.pending_notes import commit_pending, keep, pending
from memidx.memory.remember import remember
from tests.helpers import NotesRepo
from tests.pending_memory import REF, TEXT, started

BODY = "The disk was full of logs: rotate them daily.\n"


def no_finisher(*_: object) -> None:
    """None started: the test looks at what runs in its own process."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    repo = started(tmp_path)

    def still_running(_: object, __: object, commit: str, paths: list[str], ___: float) -> None:
        raise StillUnderWay(
            f"a git commit (pid 1) of this clone that started with memidx's commit of "
            f"{paths[0]} ({commit[:12]}) is still under way; it may leave {paths[0]} out of "
            "git's index, so it is not counted as committed yet",
            "it is checked and committed again once that git ends (`memidx sync` does it too)",
        )

    def one_late(_: object) -> dict[str, str]:
        return {"1": "commit"}  # a git commit that started with memidx's move

    monkeypatch.setattr(git_commit, "committers", one_late)
    monkeypatch.setattr(git_commit, "settle", still_running)
    # the finisher it starts (tests/cli/test_landed_then_late_settled.py) would check it first
    monkeypatch.setattr(pending_finisher, "start_finisher", no_finisher)
    return repo


def _head(repo: NotesRepo) -> str:
    return repo.git("rev-parse", "HEAD").strip()


def _checked_again(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, head: str) -> None:
    """That git ended: the next commit_pending drops the entry, no second commit."""
    monkeypatch.undo()
    config = load_config(repo.root, env={})
    done = commit_pending(config, None, print)
    assert done.commits == {REF: head} and pending(config) == [] and _head(repo) == head


def test_a_new_note_committed_then_a_late_git_is_answered_committed(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(repo.root, env={})
    said: list[str] = []
    done = remember(config, "Disk full", BODY, notice=said.append)
    head = _head(repo)
    assert done.ref == REF and done.commit == head and done.pending is None, said
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: Disk full\n"
    assert [note.ref for note in pending(config)] == [REF], said  # checked once that git ends
    assert any("is committed" in line and "still under way" in line for line in said), said
    assert (repo.root / REF).is_file()
    _checked_again(repo, monkeypatch, head)


def test_a_pending_note_committed_then_a_late_git_is_counted_committed(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    said: list[str] = []
    done = commit_pending(config, None, said.append)
    head = _head(repo)
    assert done.commits == {REF: head}, said
    assert repo.git("show", f"HEAD:{REF}") == TEXT
    assert [note.ref for note in pending(config)] == [REF], said
    assert any("is committed" in line and "still under way" in line for line in said), said
    _checked_again(repo, monkeypatch, head)
