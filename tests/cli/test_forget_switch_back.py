"""A `memidx forget` that meets a person's `git switch side` and back as it commits: it failed
("HEAD moved while ... was being forgotten", exit 1) though the person was back on the note's
branch a moment later (tests/benchmark/lock_clash.py: 10 of 11 forgets in 40 rounds). Now it is
made again once HEAD is back (memidx/memory/forget_wait.py); a person who stays away still has
it fail, nothing forgotten."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memidx.git import commit as commit_module
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env, started_memory

REF = "notes/old-proxy.md"
TEXT = "---\ntitle: Old proxy\n---\n\nThe old proxy on port 3128 is gone.\n"


def _switching(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, back_after: float | None
) -> list[threading.Timer]:
    """The person's `git switch side` just as the forget commits (its first commit only), and
    `git switch main` `back_after` seconds later (None: never)."""
    real: Callable[..., Any] = commit_module.commit_paths
    timers: list[threading.Timer] = []

    def person(branch: str) -> None:
        argv = ["git", *GIT_IDENTITY, "switch", "-q", branch]
        subprocess.run(argv, cwd=repo.root, env=clean_env(), check=True)

    def commit_paths(*args: Any, **kwargs: Any) -> Any:
        if not timers:
            person("side")
            timer = threading.Timer(back_after or 0.0, person, ("main",))
            timers.append(timer)
            if back_after is not None:
                timer.start()
        return real(*args, **kwargs)

    monkeypatch.setattr(commit_module, "commit_paths", commit_paths)
    return timers


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = started_memory(tmp_path)
    repo.git("branch", "side")  # without the note
    repo.write(REF, TEXT)
    repo.commit("old proxy")
    assert repo.memidx("sync").code == 0
    return repo


def test_a_forget_that_meets_a_switch_and_back_is_made_once_head_is_back(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    timers = _switching(repo, monkeypatch, back_after=2.0)

    done = repo.memidx("forget", REF)
    timers[0].join(timeout=10)

    assert done.code == 0, done.err
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert repo.git("ls-tree", "--name-only", "HEAD", "--", REF) == ""  # forgotten on main
    assert not (repo.root / REF).exists()
    assert repo.git("status", "--porcelain", "--", "notes") == ""


def test_a_switch_and_back_before_the_commit_is_never_said_to_be_the_forget(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HEAD read on side (which lacks the note: nothing to delete there, the "commit" is side's
    tip), and back on main before memidx looked again: forget said `deletion committed as
    <side's tip>`, exit 0, and main kept the note."""
    real: Callable[..., Any] = commit_module._head  # pyright: ignore[reportPrivateUsage]
    seen: list[str | None] = []

    def person(branch: str) -> None:
        argv = ["git", *GIT_IDENTITY, "switch", "-q", branch]
        subprocess.run(argv, cwd=repo.root, env=clean_env(), check=True)

    def head(git: Any) -> str | None:
        if not seen:
            person("side")
            seen.append(real(git))
            person("main")
            return seen[0]
        return real(git)

    monkeypatch.setattr(commit_module, "_head", head)

    done = repo.memidx("forget", REF)

    assert done.code == 0, done.err
    assert repo.git("ls-tree", "--name-only", "main", "--", REF) == ""  # forgotten on main
    assert seen[0] and seen[0][:12] not in done.out  # side's tip: never the forget's commit


def test_a_forget_whose_person_stays_on_the_other_branch_fails_with_nothing_forgotten(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.0)
    _switching(repo, monkeypatch, back_after=None)

    done = repo.memidx("forget", REF)

    assert done.code == 1
    assert f"HEAD moved while {REF} was being forgotten" in done.err, done.err
    assert repo.git("show", f"main:{REF}") == TEXT  # still in memory on main


def _switch(repo: NotesRepo, branch: str) -> None:
    """The person's `git switch`, its reflog entry dated now (clean_env's fixed date would date
    it in the past)."""
    when = f"@{int(time.time())} +0000"
    argv = ["git", *GIT_IDENTITY, "switch", "-q", branch]
    subprocess.run(argv, cwd=repo.root, env=clean_env(GIT_COMMITTER_DATE=when), check=True)


def test_a_forget_on_a_branch_switched_to_fails_at_once(repo: NotesRepo) -> None:
    """The person may stay there: no wait for their return (a forget begun a second after a
    switch waited its whole 10 s, and every test switching before a forget with it)."""
    _switch(repo, "side")  # just now
    started = time.monotonic()

    done = repo.memidx("forget", REF)

    assert done.code == 1 and time.monotonic() - started < 5, done.err
    assert "main holds it" in done.err, done.err
    assert repo.git("show", f"main:{REF}") == TEXT
