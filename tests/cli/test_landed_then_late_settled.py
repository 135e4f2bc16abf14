"""A note's commit that landed, then a person's `git commit` that started with it and still ran
(memidx.git.late): `remember` answered it committed, its entry kept to be checked once that git
ends. When no hook followed that git (its pre-commit check refused it), nothing checked it: the
note stayed listed pending, "not committed yet", until the next hook, `remember` or `sync`.
Now `remember` starts the finisher, which settles it as soon as that git ends, and `memidx
status` settles it too once no git holds the clone."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.git import commit as git_commit
from memidx.git import publish
from memidx.memory import pending_finisher
from memidx.memory.pending_notes import pending
from memidx.memory.remember import remember
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env
from tests.pending_memory import REF, started
from tests.pending_runs import finishers, until

BODY = "The disk was full of logs: rotate them daily.\n"
# the person's pre-commit check: it says it started, waits for the test's word, then refuses
REFUSING = """#!/bin/sh
touch started
i=0
while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
echo "pre-commit: refused" >&2
exit 1
"""
pytestmark = pytest.mark.skipif(
    not Path("/proc/self").is_dir(), reason="a git commit under way is seen in /proc"
)


def no_finisher(*_: object) -> None:
    """None started: status alone settles it."""


def landed_then_late(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, people: list[subprocess.Popen[bytes]]
) -> None:
    """`remember` whose commit lands as the person's `git commit` starts (right after memidx's
    move, where memidx looks for late gits): the person's runs past memidx's wait for it."""
    repo.write(".gitignore", ".memidx/\nstarted\ngo\n")
    repo.commit("ignored")
    hook = repo.write(".git/hooks/pre-commit", REFUSING)
    hook.chmod(0o755)
    repo.write("notes/mine.md", "# Mine\n\nThe person's own note, staged.\n")
    repo.git("add", "notes/mine.md")

    def person_starts(root: Path, *args: Any, **kwargs: Any) -> dict[str, str]:
        person = subprocess.Popen(
            ["git", *GIT_IDENTITY, "commit", "-q", "-m", "the person's"], cwd=root,
            env=clean_env(GIT_EDITOR="true"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        people.append(person)
        assert until((root / "started").exists, 10)
        return publish.committers(root, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(git_commit, "committers", person_starts)
        patched.setattr(git_commit, "WAIT_SECONDS", 1.0)  # 10 s: the late git is waited for
        said: list[str] = []
        done = remember(load_config(repo.root, env={}), "Disk full", BODY, notice=said.append)
    assert done.ref == REF and done.commit is not None and done.pending is None, said
    assert any("still under way" in line for line in said), said
    assert [note.ref for note in pending(load_config(repo.root, env={}))] == [REF]


def ended(people: list[subprocess.Popen[bytes]], repo: NotesRepo) -> None:
    (repo.root / "go").touch()
    for person in people:
        _, err = person.communicate(timeout=30)
        assert person.returncode == 1 and b"refused" in err, err  # no post-commit hook


def stopped(people: list[subprocess.Popen[bytes]], root: Path) -> None:
    for person in people:
        person.kill()
        person.wait(timeout=10)
    for pid in finishers(root):  # one that did not end on its own (the test failed)
        subprocess.run(["kill", str(pid)], check=False)


def test_the_finisher_settles_a_landed_note_once_the_late_git_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, people = started(tmp_path), list[subprocess.Popen[bytes]]()
    try:
        landed_then_late(repo, monkeypatch, people)
        head = repo.git("rev-parse", "HEAD").strip()
        assert finishers(repo.root), "no finisher was started"
        ended(people, repo)

        assert until(lambda: not pending(load_config(repo.root, env={})), 10)
        assert repo.git("rev-parse", "HEAD").strip() == head  # checked, never committed twice
        assert repo.git("show", f"HEAD:{REF}").endswith(BODY)
        assert until(lambda: not finishers(repo.root), 10)  # it ends on its own
    finally:
        stopped(people, repo.root)


def test_status_settles_a_landed_note_once_the_late_git_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pending_finisher, "start_finisher", no_finisher)  # status alone
    repo, people = started(tmp_path), list[subprocess.Popen[bytes]]()
    try:
        landed_then_late(repo, monkeypatch, people)
        ended(people, repo)

        status = repo.memidx("status")

        assert "pending" not in status.out and "not committed yet" not in status.out, status
        assert f"{REF} is committed" in status.err, status.err
        assert pending(load_config(repo.root, env={})) == []
        assert repo.git("status", "--porcelain", "--", REF) == ""
    finally:
        stopped(people, repo.root)
