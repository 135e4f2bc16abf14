"""A `remember` that commits an older pending note first, then finds a person's `git commit`
under way and leaves its own note pending, has moved HEAD: it let go of its `following` lock
without bringing the index to that HEAD, so the drift check of the person's commit, begun
then, found the index behind with no memidx command following and refused the commit, "the
index has drifted from HEAD ... 1 missing", and nothing brought the index to HEAD until the next
hook or `memidx sync` (tests/benchmark/chaos.py, seed 5: two commits of the person's refused,
the index 17 s behind a HEAD a remember moved). It brings the index to HEAD before it answers."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import GitBusy
from memidx.memory import pending_notes
from memidx.memory import remember as remember_module
from memidx.memory.pending_mark import FOLDER
from memidx.memory.pending_notes import HOOK_CAME, Committed
from tests.cli.test_share_fetch_race import wait_for
from tests.helpers import GIT_IDENTITY, MEMIDX_BIN, NotesRepo, Run, clean_env, started_memory
from tests.pending_memory import REF, index_held_past_the_move, kept_pending

BODY = "The Gradle daemon needs two gigabytes of heap on this machine.\n"


def _no_finisher(*_: object) -> None:
    """No finisher at work beside the person's commit (memidx.memory.pending_finisher)."""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_remember_left_pending_behind_an_older_note_it_committed_brings_the_index_to_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, config = kept_pending(tmp_path)  # an older note, left pending by a remember
    hold = tmp_path / "hold"
    hook = repo.root / ".git" / "hooks" / "pre-commit"  # the person's drift check, held first
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(
        f'#!/bin/sh\ntouch "{hold}.in"\nwhile [ ! -e "{hold}.go" ]; do sleep 0.02; done\n'
        f'exec "{MEMIDX_BIN}" check drift\n'
    )
    hook.chmod(0o755)
    persons: list[subprocess.Popen[str]] = []
    real = pending_notes.added_by

    def added_by(config_: object, commit: str, ref: str) -> str:
        if not persons:  # the older note's commit moved HEAD: the person's commit starts now
            repo.write("mine.txt", "the person's work\n")
            env = clean_env(MEMIDX_ROOT=str(repo.root))
            subprocess.run(["git", "add", "mine.txt"], cwd=repo.root, env=env, check=True)
            argv = ["git", *GIT_IDENTITY, "commit", "-q", "-m", "the person's commit"]
            pipe = subprocess.PIPE
            persons.append(subprocess.Popen(argv, cwd=repo.root, env=env, text=True,
                                            stdout=pipe, stderr=pipe))  # fmt: skip
            assert wait_for(None, Path(f"{hold}.in")), "the commit never reached its hook"
        return real(config, commit, ref)  # type: ignore[arg-type]

    monkeypatch.setattr(pending_notes, "added_by", added_by)
    try:
        done = _remember(monkeypatch, repo)
    finally:
        Path(f"{hold}.go").touch()  # the person's check runs once the remember answered
    out, err = persons[0].communicate(timeout=120)

    assert done.code == 0, done.err
    assert json.loads(done.out)["commit"] is None  # its own note pending: the person's git ran
    assert repo.git("log", "-1", "--format=%s", "--", REF) == "memidx remember: Disk full\n"
    assert persons[0].returncode == 0, out + err  # was: the index has drifted from HEAD
    assert "drifted" not in out + err, out + err


def _remember(monkeypatch: pytest.MonkeyPatch, repo: NotesRepo) -> Run:
    """`memidx remember --json` of BODY, in this process, with no finisher started."""
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BODY.encode())))
    return repo.memidx("remember", "--title", "Gradle heap", "--json")


def _hook_came_while_busy(config: Config) -> Callable[..., Committed]:
    """A first try of a remember's commit that found a person's git holding the clone, whose
    post-* hook came meanwhile (so the remember tries again: pending_notes.after_a_hook)."""

    def busy(*_: object, **__: object) -> Committed:
        (config.state_dir / FOLDER).mkdir(parents=True, exist_ok=True)
        (config.state_dir / FOLDER / HOOK_CAME).touch()
        return Committed({}, GitBusy("a git commit in this clone is still under way", "wait"))

    return busy


@pytest.mark.parametrize("how", ["alone", "behind-an-older-note", "retry-after-a-hook"])
def test_a_remember_whose_commit_failed_past_the_move_brings_the_index_to_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A commit that moved HEAD and then failed (git's index held by a person's git past the
    wait: `committed ..., but git's index stayed locked`) is an error of the remember: it let go
    of its `following` lock with the index behind that HEAD, no hook follows a plumbing commit,
    and a person's next commit was refused as drift. retry-after-a-hook: the retry a remember
    makes once a post-* hook came while it held remember.lock commits the pending notes too,
    and one whose commit moved HEAD and then failed raised past the index's follow, which the
    first try's error had."""
    if how == "behind-an-older-note":
        repo, config = kept_pending(tmp_path)
    else:
        repo = started_memory(tmp_path)
        config = load_config(repo.root, env={})
    if how == "retry-after-a-hook":
        monkeypatch.setattr(remember_module, "commit_kept", _hook_came_while_busy(config))
    index_held_past_the_move(monkeypatch)

    done = _remember(monkeypatch, repo)

    assert done.code == 1, done.err
    assert "git's index stayed locked" in done.err
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: Gradle heap\n"
    assert repo.memidx("check", "drift").code == 0  # was: the index has drifted from HEAD


def test_a_remember_whose_own_commit_failed_with_an_os_error_brings_the_index_to_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error that is no MemidxError (a full disk's OSError) raised after the older pending
    note's commit moved HEAD went past the index's follow, which only a MemidxError had: the
    index stayed behind that HEAD (no hook follows a plumbing commit) until the next hook, and
    a person's next commit was refused as drift."""
    import errno

    from memidx.memory import fresh_note

    repo, _ = kept_pending(tmp_path)  # an older note a `remember` left while git was busy
    real = fresh_note.commit_note
    calls: list[str] = []

    def commit_note(config_: object, note: object, wait: object, branch: str) -> str:
        calls.append(branch)
        if len(calls) > 1:  # the older note committed, HEAD moved: this one finds a full disk
            raise OSError(errno.ENOSPC, "No space left on device", str(repo.root / ".git"))
        return real(config_, note, wait, branch)  # type: ignore[arg-type]

    monkeypatch.setattr(fresh_note, "commit_note", commit_note)
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BODY.encode())))

    done = repo.memidx("remember", "--title", "Gradle heap", "--json")

    assert done.code == 1, done.err
    assert "No space left on device" in done.err and "Traceback" not in done.err
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: Disk full\n"
    assert repo.memidx("check", "drift").code == 0  # was: the index has drifted from HEAD
