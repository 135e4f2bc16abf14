"""A note pending for a side branch, committed there by plumbing while a person's `git branch -d`
of it runs: git checks the tip it read is merged, then deletes the ref without checking it is
still that tip (git 2.39), so the commit went with the branch, unreachable, and the pending
note was dropped as committed (tests/benchmark/chaos.py, seed 1: acknowledged, never in the
remote). The race is held open by a reference-transaction hook that stops `git branch -d` after
its check, before its delete (its first call, for packed-refs, runs before the ref is locked)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from memidx.config import load_config
from memidx.memory.pending_notes import keep
from tests.helpers import MEMIDX_BIN, clean_env, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
HOLD = """#!/bin/sh
# the first deletion of refs/heads/side: held until the test says go (bounded)
read -r old new ref
if [ "$1" = prepared ] && [ "$ref" = refs/heads/side ] && [ ! -e "{held}" ]; then
  case "$new" in 0000000000000000000000000000000000000000)
    : > "{held}"
    n=0
    while [ ! -e "{go}" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done;;
  esac
fi
exit 0
"""


def _until(done: bool | None, what: str, deadline: float) -> None:
    assert done or time.monotonic() < deadline, f"timed out waiting for {what}"


def test_a_note_committed_on_a_branch_being_deleted_stays_pending_and_lands(
    tmp_path: Path,
) -> None:
    repo = started_memory(tmp_path)
    repo.git("branch", "side")  # merged: `git branch -d` deletes it
    repo.write(REF, TEXT)  # as a `remember` on side leaves it while git is busy
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/side")
    held, go = tmp_path / "held", tmp_path / "go"
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(HOLD.format(held=held, go=go))
    hook.chmod(0o755)
    tip = repo.git("rev-parse", "side").strip()
    args = ["git", "branch", "-q", "-d", "side"]
    deleting = subprocess.Popen(args, cwd=repo.root, env=clean_env())
    try:
        deadline = time.monotonic() + 30
        while not held.exists():  # checked merged at `tip`, not deleted yet
            _until(deleting.poll() is None, "git branch -d to hold", deadline)
            time.sleep(0.05)
        env = clean_env(MEMIDX_ROOT=str(repo.root))
        synced = subprocess.Popen([str(MEMIDX_BIN), "sync"], cwd=repo.root, env=env)
        try:
            while repo.git("rev-parse", "side").strip() == tip:  # memidx committed on side
                _until(synced.poll() is None, "memidx to commit on side", deadline)
                time.sleep(0.05)
            go.touch()
            assert deleting.wait(30) == 0
            assert synced.wait(60) == 0
        finally:
            synced.kill()
            synced.wait()
    finally:
        go.touch()
        deleting.kill()
        deleting.wait()
    assert repo.git("branch", "--list", "side") == ""  # the person's delete went through

    again = repo.memidx("sync")  # the branch gone: committed on the one checked out

    assert again.code == 0, again.err
    assert repo.git("show", f"main:{REF}") == TEXT
    assert repo.memidx("status", "--json").json()["pending_notes"] == []


def _holds_open(pid: int, name: str) -> bool:
    """Whether process `pid` has a file called `name` open (Linux /proc)."""
    try:
        return any(link.readlink().name == name for link in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False


def test_a_note_whose_branch_is_deleted_as_memidx_commits_on_it_is_not_dropped(
    tmp_path: Path,
) -> None:
    """Its branch looked at, there; deleted before memidx read its tip: "refs/heads/side is
    gone; commit it yourself", and a pending note not the remember's own was dropped as failed,
    its file untracked for good (chaos.py, seed 3). The gap is held open by commit.lock."""
    from memidx.git.commit_lock import LOCK
    from memidx.portable import file_lock

    repo = started_memory(tmp_path)
    repo.git("branch", "side")
    repo.write(REF, TEXT)
    config = load_config(repo.root, env={})
    keep(config, REF, "Disk full", TEXT, "refs/heads/side")
    env = clean_env(MEMIDX_ROOT=str(repo.root))
    with file_lock(config.state_dir / LOCK) as taken:
        assert taken
        synced = subprocess.Popen(
            [str(MEMIDX_BIN), "sync"], cwd=repo.root, env=env, stderr=subprocess.PIPE, text=True
        )
        try:
            deadline = time.monotonic() + 30
            while not _holds_open(synced.pid, LOCK):  # past its look at side: waits for it
                _until(synced.poll() is None, "memidx to wait for commit.lock", deadline)
                time.sleep(0.05)
            repo.git("branch", "-q", "-D", "side")
        except BaseException:
            synced.kill()
            raise
    _, err = synced.communicate(timeout=60)
    assert synced.returncode == 0, err
    assert "is gone" not in err, err  # it said "commit it yourself" of a note it then dropped

    again = repo.memidx("sync")  # the branch gone: committed on the one checked out

    assert again.code == 0, again.err
    assert repo.git("show", f"main:{REF}") == TEXT
    assert repo.memidx("status", "--json").json()["pending_notes"] == []


def test_a_note_is_not_said_committed_while_a_delete_of_its_branch_still_runs(
    tmp_path: Path,
) -> None:
    """Its commit's deadline spent (commit.lock held 9.8 s by another memidx, say), memidx did
    not look for the running `git branch -d` at all, or gave up on one still running: "committed
    notes/disk-full.md on side", the pending note dropped, then the delete took the commit, the
    note nowhere (not on main, not in the work tree, not pending). Here the delete outlasts
    memidx's whole wait (held by the hook until memidx is done)."""
    repo = started_memory(tmp_path)
    repo.git("branch", "side")
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/side")
    held, go = tmp_path / "held", tmp_path / "go"
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(HOLD.format(held=held, go=go))
    hook.chmod(0o755)
    args = ["git", "branch", "-q", "-d", "side"]
    deleting = subprocess.Popen(args, cwd=repo.root, env=clean_env())
    try:
        deadline = time.monotonic() + 30
        while not held.exists():  # checked merged, not deleted yet
            _until(deleting.poll() is None, "git branch -d to hold", deadline)
            time.sleep(0.05)
        synced = repo.memidx("sync")  # it commits on side, then waits for the delete
        go.touch()
        assert deleting.wait(30) == 0
    finally:
        go.touch()
        deleting.kill()
        deleting.wait()
    assert synced.code == 0, synced.err
    assert "committed notes/disk-full.md on side" not in synced.err

    again = repo.memidx("sync")  # the branch gone: committed on the one checked out

    assert again.code == 0, again.err
    assert repo.git("show", f"main:{REF}") == TEXT
    assert repo.memidx("status", "--json").json()["pending_notes"] == []
