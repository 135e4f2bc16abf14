"""An MCP remember while a `git rebase --apply` runs past its answer time: that backend (`git
am` underneath) writes the branch it rebases (rebase-apply/head-name) only once it stops
(git 2.39: read while it runs, the folder holds no head-name), so the note cannot be kept for
that branch as during a `git rebase` of the merge backend. It is refused, nothing written, in
words that say why and what to do (it said only "a rebase is under way")."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.mcp.answers import remember
from memidx.memory.pending_mark import any_pending
from tests.cli.test_late_merge import wait_for
from tests.helpers import clean_env, started_memory

TITLE = "Worker stops after an update"
BODY = "The worker stopped after an update: its unit file lost the restart line again."


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_remember_during_a_running_apply_rebase_is_refused_and_says_why(
    tmp_path: Path,
) -> None:
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("second.md", "Second", "a second note so that there is a commit to apply again")
    repo.commit("second")
    config = load_config(repo.root, env={})
    picked = tmp_path / "picked"
    hook = repo.root / ".git" / "hooks" / "applypatch-msg"
    hook.write_text(f"#!/bin/sh\ntouch {picked}; sleep 4\n")
    hook.chmod(0o755)
    argv = ["git", "rebase", "-q", "--apply", "--force-rebase", "HEAD~1"]
    person = subprocess.Popen(argv, cwd=repo.root, env=clean_env(), stderr=subprocess.PIPE)
    try:
        wait_for("the rebase to apply", picked.exists)
        assert not (repo.root / ".git" / "rebase-apply" / "head-name").exists()
        started = time.monotonic()
        with pytest.raises(MemidxError) as refused:
            remember(config, TITLE, BODY, deadline=time.monotonic() + 1.0)
        waited = time.monotonic() - started
    finally:
        _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err
    said = f"{refused.value.message} ({refused.value.hint})"
    assert "git rebase --apply" in said and "only once it stops" in said, said
    assert "the note was not written" in said and "try again once" in said, said
    assert waited < 2.5, waited  # its answer time, not the command line's 10 s
    assert not repo.git("status", "--porcelain") and not any_pending(config)
