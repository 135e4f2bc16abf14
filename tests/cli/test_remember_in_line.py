"""Remembers queued behind one that waits out a person's long git (memory/queued_note.py): each
waited 30 s for remember.lock, then failed, "stopped or hung?", nothing written, the agent's
note lost (chaos runs: 2 to 4 in 200 operations). Now each is kept pending and answered so,
and every note is committed once, when the queue and git let go."""

from __future__ import annotations

import io
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.memory import remember as remember_module
from memidx.memory.pending_mark import any_pending
from memidx.memory.pending_notes import LOCK, pending
from memidx.memory.remember import Remembered, remember
from memidx.portable import file_lock
from tests.helpers import GIT_IDENTITY, NotesRepo, Run, clean_env, in_threads
from tests.pending_runs import finishers, until

BODY = "The build cache broke when the disk filled with old logs; clear them weekly.\n"
# The person's pre-commit check: it says it started, then waits for the test's word (a long
# `git pull --rebase` or an editor left open holds the clone the same way).
SLOW = """#!/bin/sh
touch started
i=0
while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
exit 0
"""
QUEUED = 4


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    monkeypatch.setattr(remember_module, "LOCK_WAIT", 1.0)  # 30 s: the test would wait it
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.write(".gitignore", ".memidx/\nstarted\ngo\n")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "start")
    return repo


def _added(repo: NotesRepo, ref: str) -> int:
    """How many commits added or changed `ref`."""
    return len(repo.git("log", "--format=%H", "--", ref).split())


def _all_committed(repo: NotesRepo) -> None:
    """Wait (30 s at most) for the finishers to commit every pending note and end."""
    config = load_config(repo.root, env={})
    assert until(lambda: not any_pending(config) and not finishers(repo.root), 30), pending(config)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_remembers_in_line_behind_one_waiting_for_git_are_kept_and_committed_once(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One remember holds remember.lock while it waits out a person's `git commit` (its check
    running); four more queue behind it past remember.lock's wait. None fails: each answers
    pending, and once the person's commit ends every note is committed, once."""
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 3.0)  # the first's wait for git
    hook = repo.write(".git/hooks/pre-commit", SLOW)
    hook.chmod(0o755)
    repo.write("notes/mine.md", "# Mine\n\nThe person's own note, staged for their commit.\n")
    repo.git("add", "notes/mine.md")
    person = subprocess.Popen(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "the person's"], cwd=repo.root,
        env={**clean_env(), "GIT_EDITOR": "true"}, stderr=subprocess.PIPE,
    )  # fmt: skip
    config = load_config(repo.root, env={})
    answers: dict[int, Remembered] = {}
    said: list[str] = []
    first = threading.Thread(
        target=lambda: answers.setdefault(
            0, remember(config, "Waits for git", BODY, notice=said.append)
        )
    )
    try:
        assert until((repo.root / "started").exists, 10)
        first.start()
        assert until((config.state_dir / LOCK).exists, 5)
        time.sleep(0.3)  # the first holds remember.lock now, waiting for the person's git

        def queued(n: int) -> None:
            title = f"Queued note number {n + 1}"
            answers[n + 1] = remember(config, title, BODY, notice=said.append)

        failures = in_threads(queued, QUEUED)
        assert failures == [], failures
        first.join(timeout=30)
        (repo.root / "go").touch()
        assert person.wait(timeout=30) == 0
    finally:
        (repo.root / "go").touch()
        person.kill()
        person.wait()
        first.join(timeout=30)
    assert sorted(answers) == list(range(QUEUED + 1))
    in_line = [answers[n] for n in range(1, QUEUED + 1)]
    assert all(done.commit is None and done.pending for done in in_line), in_line
    assert all("queued in line" in str(done.pending) for done in in_line), in_line
    _all_committed(repo)
    for done in answers.values():
        assert _added(repo, done.ref) == 1, done.ref
    assert _added(repo, "notes/mine.md") == 1 and not repo.git("status", "--porcelain").strip()


def test_a_remember_in_line_answers_pending_in_json_and_exit_0(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memidx remember --json` behind remember.lock held past its wait: exit 0, `committed`
    false, `pending` saying why; the same note sent twice in line is kept once."""
    config = load_config(repo.root, env={})
    with file_lock(config.state_dir / LOCK):  # another remember in line holds it
        runs: list[Run] = []
        for _ in range(2):
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BODY.encode())))
            runs.append(repo.memidx("remember", "--json", "--title", "Kept in line"))
        assert len(pending(config)) == 1
    for run in runs:
        assert run.code == 0, run.err
        answer = json.loads(run.out)
        assert answer["committed"] is False and answer["commit"] is None
        assert "held" in answer["pending"] and "queued in line" in answer["pending"]
        assert "not committed yet" in run.err and "error" not in run.err
    _all_committed(repo)
    assert _added(repo, "notes/kept-in-line.md") == 1


HOLDER = (
    "import fcntl, sys, time\n"
    "f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.mark.skipif(not Path("/proc/locks").is_file(), reason="a lock's holder is seen in /proc")
def test_a_remember_behind_a_stopped_holder_is_an_error_and_its_note_is_kept(
    repo: NotesRepo,
) -> None:
    """The holder of remember.lock stopped (Ctrl-Z): no queue moves behind it, so the remember
    says so (exit 1, naming the process and how to resume it), and its note is kept pending
    all the same: committed once, after the holder goes on and ends."""
    import signal
    import sys

    from memidx.errors import MemidxError

    config = load_config(repo.root, env={})
    config.state_dir.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(config.state_dir / LOCK)], stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        holder.send_signal(signal.SIGSTOP)
        with pytest.raises(MemidxError, match=rf"process {holder.pid} holding .* is stopped"):
            remember(config, "Behind a stopped one", BODY)
        assert [note.ref for note in pending(config)] == ["notes/behind-a-stopped-one.md"]
    finally:
        holder.kill()
        holder.send_signal(signal.SIGCONT)
        holder.wait(timeout=10)
    _all_committed(repo)
    assert _added(repo, "notes/behind-a-stopped-one.md") == 1


def test_a_remember_with_an_answer_time_waits_for_its_turn_only_until_then(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server's remember (an agent's tool call, answered within 3 s) waited remember.lock's
    whole 30 s behind a `memidx remember` of the command line; now only until its answer time,
    then its note is kept pending and it answers so."""
    monkeypatch.setattr(remember_module, "LOCK_WAIT", 20.0)
    config = load_config(repo.root, env={})
    with file_lock(config.state_dir / LOCK):  # a command line's remember, waiting for git
        started = time.monotonic()
        done = remember(config, "In time", BODY, deadline=started + 0.5)
        took = time.monotonic() - started
    assert done.commit is None and "queued in line" in str(done.pending) and took < 5, took
    _all_committed(repo)
    assert _added(repo, "notes/in-time.md") == 1
