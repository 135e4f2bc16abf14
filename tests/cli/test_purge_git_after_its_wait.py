"""A person's git that begins after `memidx haystack purge` waited for the clone's git, while
the purge waits for the clone writer's lock (a filing holds it): the purge took the lock, gave
that git 2 s under it (LOCKED_WAIT), and refused, "try again", a `git commit -a` its own wait
(10 s) would have outlasted. It lets go of the lock and waits for that git again now, within
the same 10 s, and finishes."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.haystack.clone_writer import clone_writer
from tests.cli.test_late_merge import wait_for
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env, started_memory

HOLD_S = 4  # the person's editor stays open past LOCKED_WAIT, well within WAIT_SECONDS
SECRET = "the deploy key is kept in the blue vault, rotated weekly"


def _segments(repo: NotesRepo) -> bytes:
    return b"".join(p.read_bytes() for p in (repo.root / "notes" / "haystack").rglob("*.krd"))


def _forgotten(tmp_path: Path) -> NotesRepo:
    """A memory whose one turn, committed and not pushed, is forgotten; start.md edited."""
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    turn = {"user": "where is the deploy key", "assistant": SECRET}
    # in-process: the set-up, not what is checked (three processes cost ~0.6 s of CPU more)
    filed = repo.memidx("file-turn", "--json", stdin=json.dumps(turn))
    assert filed.code == 0, filed.err
    assert repo.memidx("haystack", "commit").code == 0  # unpushed: purge rewrites it
    assert repo.memidx("forget", str(filed.json()["id"])).code == 0
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, edited by a person.\n")
    return repo


def _purged(repo: NotesRepo) -> None:
    assert SECRET.encode() not in _segments(repo)
    assert SECRET not in repo.git("log", "-p", "--text", "--all")
    assert "a person edits start" in repo.git("log", "--format=%s")  # theirs, built again
    assert not repo.git("status", "--porcelain", "notes/start.md")  # committed, not undone


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_purge_waits_for_git_before_the_lock_and_finishes(tmp_path: Path) -> None:
    """Its wait before the lock (quiet_then): with none, a git past LOCKED_WAIT refused it."""
    repo = _forgotten(tmp_path)
    editor = f"sleep {HOLD_S}; echo 'a person edits start' >"
    person = subprocess.Popen(
        ["git", "commit", "-q", "-a"], cwd=repo.root, env=clean_env(GIT_EDITOR=editor)
    )
    try:
        wait_for("git's index lock", (repo.root / ".git" / "index.lock").exists)
        purge = repo.memidx_process("haystack", "purge")
        assert purge.code == 0 and "Traceback" not in purge.err, purge.err
    finally:
        assert person.wait(HOLD_S + 60) == 0
    _purged(repo)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_git_begun_while_the_purge_waits_for_the_lock_is_waited_for(tmp_path: Path) -> None:
    repo = _forgotten(tmp_path)
    purge: subprocess.Popen[str] | None = None
    person: subprocess.Popen[bytes] | None = None
    try:
        with clone_writer(load_config(repo.root, env={})).locked():  # a filing's, say
            purge = subprocess.Popen(
                [str(MEMIDX_BIN), "haystack", "purge"],
                cwd=repo.root,
                env=clean_env(MEMIDX_ROOT=str(repo.root)),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            time.sleep(1.5)  # the purge found git quiet and waits for the lock
            editor = f"sleep {HOLD_S}; echo 'a person edits start' >"
            person = subprocess.Popen(
                ["git", "commit", "-q", "-a"],
                cwd=repo.root,
                env=clean_env(GIT_EDITOR=editor),
                stderr=subprocess.PIPE,
            )
            wait_for("git's index lock", (repo.root / ".git" / "index.lock").exists)
        _, err = purge.communicate(timeout=60)
        assert purge.returncode == 0, err  # it refused: "no segment changed (try again)"
        assert "Traceback" not in err, err
    finally:
        if purge is not None and purge.poll() is None:
            purge.kill()
            purge.wait()
        if person is not None:
            _, person_err = person.communicate(timeout=HOLD_S + 60)
            assert person.returncode == 0, person_err
    _purged(repo)
