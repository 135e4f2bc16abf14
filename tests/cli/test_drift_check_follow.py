"""The drift check of a person's `git commit` that comes while memidx's own commit (remember,
forget, a haystack commit, a hook) has moved HEAD and is bringing the index to it: it refused
the commit, "the index has drifted from HEAD ... or a hook failed; run `make reconcile`", for a
drift memidx ended a moment later (tests/benchmark/chaos.py, seed 1: the person's commit
failed). It waits for that command (memidx/index/following.py), then looks again; one still
under way after memidx/githooks/drift_wait.FOLLOW_WAIT is no drift a hook left."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.githooks import drift_wait
from memidx.index.following import following
from tests.helpers import NotesRepo

ENGLISH = "The file lock is held by another process on Windows, so nobody can write any more."


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    """An indexed memory whose HEAD moved past the index (memidx's commit, not followed yet),
    the person's note staged."""
    monkeypatch.delenv("SKIP", raising=False)
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    repo.note("remembered.md", "Remembered", ENGLISH)
    repo.commit("memidx remember: Remembered")  # HEAD moved; the index follows it next
    repo.note("mine.md", "Mine", ENGLISH)
    repo.git("add", "notes/mine.md")
    return repo


def _follow(repo: NotesRepo, seconds: float, *, to_head: bool) -> threading.Thread:
    """memidx's command between its two steps for `seconds`: it holds its `following` lock
    file, then brings the index to HEAD (`to_head`) or ends without (killed)."""
    held = threading.Event()

    def command() -> None:
        with following(load_config(repo.root, env={})):
            held.set()
            time.sleep(seconds)
            if to_head:
                assert repo.memidx("sync").code == 0

    thread = threading.Thread(target=command)
    thread.start()
    assert held.wait(timeout=10)
    return thread


def test_a_commit_during_memidx_follow_waits_for_it_and_is_not_refused(repo: NotesRepo) -> None:
    thread = _follow(repo, 1.0, to_head=True)
    try:
        done = repo.memidx_process("check", "all", "notes/mine.md")
    finally:
        thread.join(timeout=60)

    assert done.code == 0 and "drifted" not in done.out, done.out + done.err


def test_a_follow_that_ends_short_of_head_is_still_drift(repo: NotesRepo) -> None:
    thread = _follow(repo, 0.5, to_head=False)
    try:
        done = repo.memidx_process("check", "all", "notes/mine.md")
    finally:
        thread.join(timeout=60)

    assert done.code == 1 and "the index has drifted from HEAD (it is at" in done.out, done.out


def test_a_follow_still_under_way_after_the_wait_lets_the_commit_go(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drift_wait, "FOLLOW_WAIT", 0.3)
    thread = _follow(repo, 2.0, to_head=False)
    try:
        done = repo.memidx("check", "all", "notes/mine.md")
    finally:
        thread.join(timeout=60)

    assert done.code == 0 and "drifted" not in done.out, done.out


def test_a_commit_goes_on_once_the_index_is_at_head_though_a_follow_still_holds(
    repo: NotesRepo,
) -> None:
    """A memidx command that holds `following` while it waits for this very `git commit` (a
    share's haystack commit, a forget: they wait for git's index, which the commit holds
    through its hooks) held the check for all its wait once another's follow had brought the
    index to HEAD: the person's commit took 8-9 s, and memidx's command failed, "git's index
    was held by git commit (pid N) for all of memidx's wait" (chaos.py seeds 3 and 4). The
    check goes on as soon as the index is at HEAD."""
    waiting = _follow(repo, 8.0, to_head=False)  # the command waiting for this commit
    released = time.monotonic() + 8.0
    follower = _follow(repo, 0.5, to_head=True)  # the one that moved HEAD brings the index
    try:
        done = repo.memidx_process("check", "all", "notes/mine.md")
        ended = time.monotonic()
    finally:
        follower.join(timeout=60)
        waiting.join(timeout=60)

    assert done.code == 0 and "drifted" not in done.out, done.out + done.err
    assert ended < released - 1.0, f"the check waited {ended - released + 8.0:.1f} s"
