"""Another git holds HEAD's lock (`.git/HEAD.lock`, or its branch's) while memidx would move
HEAD: memidx waited its 10 s, then said "HEAD kept moving" of a HEAD that never moved, and
"try again" of a lock a killed git left, which no waiting ends."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git.commit import commit_paths
from tests.alone import memidx_waiting_long
from tests.cli.test_remember import hold_open
from tests.helpers import NotesRepo, started_memory
from tests.pending_runs import finishers, until

BODY = "The proxy dropped long requests, so uploads over a minute failed for everyone.\n"
TEXT = "---\ntitle: Proxy timeout\ncreated: '2026-12-05'\n---\n\n" + BODY
REF = "notes/proxy-timeout.md"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return started_memory(tmp_path)


@pytest.mark.parametrize("locked", ["HEAD.lock", "refs/heads/main.lock"])
def test_a_held_head_lock_is_named_with_its_holder(repo: NotesRepo, locked: str) -> None:
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    lock = repo.root / ".git" / locked
    holder = hold_open(lock, 30)  # a git updating HEAD holds it (here: open, named by its pid)
    try:
        with pytest.raises(GitBusy) as raised:
            commit_paths(config, [REF], "Proxy timeout", wait=1.0)
    finally:
        holder.kill()
        holder.wait()
    assert raised.value.message == (
        f"{lock} was held by python (pid {holder.pid}) for all of memidx's wait, so HEAD could "
        f"not be moved; {REF} was not committed"
    )
    assert raised.value.hint == "try again once that command ends"
    assert "kept moving" not in str(raised.value)


@pytest.mark.parametrize("locked", ["HEAD.lock", "refs/heads/main.lock"])
def test_a_head_lock_a_killed_git_left_is_said_at_once_with_its_remedy(
    repo: NotesRepo, locked: str
) -> None:
    """The branch's lock too: `remember` named it, and status said `no git holds the clone
    now, and no finisher runs: the next memidx remember or memidx sync commits it`, which
    fails as long as the lock is there (and the finisher gave up at once). Told by what the
    remember did, its wait made long: one that waited for the lock is still waiting when
    given up on (memidx_waiting_long)."""
    lock = repo.root / ".git" / locked
    lock.write_text("")  # left by a git that was killed: no process holds it
    run = memidx_waiting_long(repo, "remember", "--title", "Proxy timeout", stdin=BODY)
    assert run.code == 1 and "Traceback" not in run.err, run.err  # not the wait no waiting ends
    assert f"{lock} was left behind by a git process that was killed" in run.err, run.err
    assert f"remove it: rm {lock}; the note is kept, and committed once it is removed" in run.err
    [shown] = repo.memidx("status", "--json").json()["pending_notes"]
    assert shown["why"].startswith(f"{lock} was left behind") and f"rm {lock}" in shown["why"]
    lock.unlink()
    assert repo.memidx("sync").code == 0
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects == ["memidx remember: Proxy timeout", "start"]
    assert until(lambda: not list(finishers(repo.root)), 10), "its finisher did not end"


def test_a_git_that_keeps_the_lock_closed_is_named_by_its_command(repo: NotesRepo) -> None:
    """git keeps a ref's lock closed while it waits (its reference-transaction hook, say): the
    holder named is the git running in the clone, by its command alone, never its arguments."""
    from memidx.git.lock_holders import holder

    lock = repo.root / ".git" / "HEAD.lock"
    lock.write_text("")
    waiting = subprocess.Popen(
        ["git", "hash-object", "--stdin"], cwd=repo.root, stdin=subprocess.PIPE
    )  # a git of the clone that runs until its input ends
    try:
        named = holder(lock, repo.root)
    finally:
        waiting.communicate(b"", timeout=10)
    assert named == f"git hash-object (pid {waiting.pid})"
    assert holder(lock, repo.root) is None  # none now: a killed git's
