"""A side commit waits for a `git branch` that may delete or move its branch, not for one
that lists: a listing held open by its pager (`git branch` in a terminal) made each pending
note's commit on its branch wait the whole deadline (10 s: `memidx sync` took 10.9 s)."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import subprocess
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import side_commit
from memidx.memory.pending_notes import keep
from tests.alone import memidx_waiting_long
from tests.helpers import NotesRepo, clean_env, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
LONG_WAIT = 60.0  # seconds the in-process side commit may wait: a wait for the listing shows


def test_a_listing_held_open_by_its_pager_does_not_hold_a_side_commit(tmp_path: Path) -> None:
    """Told by what the sync did, its wait made long (memidx_waiting_long): one that waited
    for the listing is still waiting when given up on (a bound of twice a sync alone and 5 s
    could not fail once a sync alone took over 5 s)."""
    repo = started_memory(tmp_path)
    with _pending_beside_a_listing(repo):
        synced = memidx_waiting_long(repo, "sync")
    assert synced.code == 0, synced.err
    assert repo.git("show", f"side:{REF}") == TEXT
    assert repo.memidx("status", "--json").json()["pending_notes"] == []


def test_a_side_commit_given_a_long_wait_takes_none_of_it_for_a_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same sync in-process with a wait of LONG_WAIT: told from one that waited for the
    listing on any load (the process's bound, on top of a sync alone, passes a 10 s wait
    once a sync alone takes 5 s, as under CI-like load: 6.4 s)."""
    repo = started_memory(tmp_path)
    monkeypatch.setattr(side_commit, "WAIT_SECONDS", LONG_WAIT)
    with _pending_beside_a_listing(repo):
        started = time.monotonic()
        synced = repo.memidx("sync")
        took = time.monotonic() - started
    assert synced.code == 0, synced.err
    assert took < LONG_WAIT / 2, f"sync took {took:.1f} s beside git branch"
    assert repo.git("show", f"side:{REF}") == TEXT


@contextlib.contextmanager
def _pending_beside_a_listing(repo: NotesRepo) -> Generator[None]:
    """A note pending for the branch `side`, and a `git branch` listing held open by its pager
    in a terminal (300 s: past memidx_waiting_long's 60) while the block runs."""
    repo.git("branch", "side")
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/side")
    leader, follower = pty.openpty()  # a terminal: git starts its pager only for one
    env = clean_env(GIT_PAGER="sleep 300")
    args = ["git", "-p", "branch"]
    listing = subprocess.Popen(
        args, cwd=repo.root, stdout=follower, env=env, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 30
        while not _children(listing.pid):  # its pager started (a task's file is there at once)
            assert time.monotonic() < deadline and listing.poll() is None
            time.sleep(0.05)
        assert listing.poll() is None, "git branch should be held open by its pager"
        yield
    finally:
        os.killpg(listing.pid, signal.SIGKILL)  # git and its pager
        listing.wait()
        os.close(leader)
        os.close(follower)


def _children(pid: int) -> str:
    """The pids of the processes `pid` started, as /proc lists them ("" for none yet)."""
    text = ""
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            text += task.read_text().strip()
    return text
