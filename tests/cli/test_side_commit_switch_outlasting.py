"""A pending note's commit on `side` (memidx.git.side_commit.commit_on) while a person's `git
switch` of the clone runs past memidx's wait (a slow smudge filter, a big checkout): side is
not moved under a switch, and the error said "side kept moving", of a branch that never moved,
with "try again" and nothing on what to wait for. It names the switch still under way."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import side_commit
from tests.cli.test_git_forms_at_the_look import git_running
from tests.helpers import NotesRepo


def test_a_switch_outlasting_the_wait_is_named(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    tip = repo.commit("notes")
    repo.git("branch", "side")
    repo.git("switch", "-q", "-c", "slow")
    (repo.root / ".gitattributes").write_text("big.txt filter=slow\n")
    (repo.root / "big.txt").write_text("checked out slowly\n")
    repo.commit("a file a filter checks out")
    repo.git("switch", "-q", "main")
    ran = repo.root.parent / "smudging"
    repo.git("config", "filter.slow.clean", "cat")
    repo.git("config", "filter.slow.smudge", f"touch {ran}; exec sleep 30")
    monkeypatch.setattr(side_commit, "WAIT_SECONDS", 1.0)
    config = load_config(repo.root, env={})

    with git_running(["switch", "-q", "slow"], repo.root, ran) as pid:
        started = time.monotonic()
        with pytest.raises(GitBusy) as raised:
            side_commit.commit_on(config, "refs/heads/side", "notes/x.md", b"x\n", "x")
        waited = time.monotonic() - started

    said = str(raised.value)
    assert f"a `git switch` (pid {pid}) of this clone was still under way" in said, said
    assert "kept moving" not in said
    assert "try again once it ends" in raised.value.hint
    assert waited < 5, waited  # the wait, not five more tries
    assert repo.git("rev-parse", "side").strip() == tip
    assert not Path(repo.root / ".git" / "refs" / "heads" / "side.lock").exists()
