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
from threading import Thread

import pytest

from memidx.config import load_config
from memidx.githooks import drift_wait
from memidx.index.following import following
from tests.helpers import NotesRepo

LONG_WAIT = 30.0  # seconds a check waits for a follow here: far past any load
ENGLISH = "The file lock is held by another process on Windows, so nobody can write any more."


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    """An indexed memory, the person's note staged."""
    monkeypatch.delenv("SKIP", raising=False)
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    repo.note("mine.md", "Mine", ENGLISH)
    repo.git("add", "notes/mine.md")
    return repo


def _remembered(repo: NotesRepo) -> None:
    """memidx's commit: HEAD moves past the index (not followed yet), the staged note kept."""
    repo.note("remembered.md", "Remembered", ENGLISH)
    repo.git("add", "notes/remembered.md")
    commit = ("commit", "-q", "--no-verify", "-m", "memidx remember: Remembered")
    repo.git(*commit, "--", "notes/remembered.md")


def _follow(
    repo: NotesRepo,
    seconds: float,
    *,
    to_head: bool,
    moves: bool = True,
    then: float = 0.0,
    released: threading.Event | None = None,
    ended: threading.Event | None = None,
) -> Thread:
    """memidx's command: it holds its `following` lock file, moves HEAD (`moves`; else it
    waits, as a `remember` waiting for git), and `seconds` later (or once `released`) brings
    the index to HEAD (`to_head`) or ends without (killed); then goes on for `then` seconds
    (or until `ended`)."""
    held = threading.Event()

    def command() -> None:
        with following(load_config(repo.root, env={})):
            if moves:
                _remembered(repo)
            held.set()
            (released or threading.Event()).wait(seconds)
            if to_head:
                assert repo.memidx_process("sync").code == 0  # not in-process: stdout is shared
            (ended or threading.Event()).wait(then)

    thread = threading.Thread(target=command)
    thread.start()
    assert held.wait(timeout=10)
    return thread


def test_a_commit_during_memidx_follow_waits_for_it_and_is_not_refused(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drift_wait, "FOLLOW_WAIT", 30.0)
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


def test_a_follow_still_under_way_after_the_wait_lets_the_commit_go_and_says_so(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drift_wait, "FOLLOW_WAIT", 0.3)
    thread = _follow(repo, 2.0, to_head=False)
    try:
        done = repo.memidx("check", "all", "notes/mine.md")
    finally:
        thread.join(timeout=60)

    assert done.code == 0 and "drifted" not in done.out, done.out
    assert "still bringing the index to HEAD after 0.3 s: the commit goes on" in done.err, done.err


def test_a_command_begun_after_head_moved_is_not_waited_for(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `remember` that began after a git operation no hook followed moved HEAD, waiting for
    the git whose commit this check is (git holds its index): the commit waited 10 s for it,
    it for the commit, and the real drift went through unchecked (12.6 s each)."""
    # the command holds until the check ended, and the check's wait is long: a check that
    # waited for it is told from one that did not on any load (4.0 s of 5 were too few)
    monkeypatch.setattr(drift_wait, "FOLLOW_WAIT", LONG_WAIT)
    _remembered(repo)  # no memidx command made it: HEAD moved, no hook followed
    time.sleep(0.05)  # file times are coarse: the command begins after, not in the same tick
    released = threading.Event()
    thread = _follow(repo, 2 * LONG_WAIT, to_head=False, moves=False, released=released)
    try:
        began = time.monotonic()
        done = repo.memidx("check", "all", "notes/mine.md")
        took = time.monotonic() - began
    finally:
        released.set()
        thread.join(timeout=60)

    assert done.code == 1 and "the index has drifted from HEAD (it is at" in done.out, done.out
    assert took < LONG_WAIT / 2, took


def test_the_wait_ends_once_the_index_is_at_head(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that goes on after bringing the index to HEAD is not waited for."""
    # the check waits long and the command goes on until the check ended: one that waited for
    # the command is told from one that did not on any load (its sync outlasted a 6 s wait)
    monkeypatch.setattr(drift_wait, "FOLLOW_WAIT", LONG_WAIT)
    ended = threading.Event()
    thread = _follow(repo, 1.0, to_head=True, then=2 * LONG_WAIT, ended=ended)
    try:
        done = repo.memidx("check", "all", "notes/mine.md")
    finally:
        ended.set()
        thread.join(timeout=60)

    assert done.code == 0 and "drifted" not in done.out, done.out
    assert "still bringing" not in done.err, done.err


def test_a_commit_goes_on_once_the_index_is_at_head_though_a_follow_still_holds(
    repo: NotesRepo,
) -> None:
    """A memidx command that holds `following` while it waits for this very `git commit` (a
    share's haystack commit, a forget: they wait for git's index, which the commit holds
    through its hooks) held the check for all its wait once another's follow had brought the
    index to HEAD: the person's commit took 8-9 s, and memidx's command failed, "git's index
    was held by git commit (pid N) for all of memidx's wait" (chaos.py seeds 3 and 4). The
    check goes on as soon as the index is at HEAD. Told by what the check says, not by its time:
    one that waited for the command's follow waits all of FOLLOW_WAIT (10 s), then says so and
    goes on, while the command holds for longer; a bound of the check alone and 5 s left out
    the follower's own sync, a new process that took seconds on a loaded machine."""
    released = threading.Event()  # the waiting command holds until the check ended (60 s at
    # most, past the check's whole wait): 8 s were less than its own process took under load
    waiting = _follow(repo, 2 * LONG_WAIT, to_head=False, moves=False, released=released)
    follower = _follow(repo, 0.5, to_head=True)  # the one that moved HEAD brings the index
    try:
        done = repo.memidx_process("check", "all", "notes/mine.md")
        held = waiting.is_alive()  # the check went on while the command still held
    finally:
        released.set()
        follower.join(timeout=60)
        waiting.join(timeout=60)

    assert done.code == 0 and "drifted" not in done.out, done.out + done.err
    assert held, "the check waited for the command's follow to end"
    assert "a memidx command of this clone" not in done.err, done.err  # not its whole wait
