"""An MCP remember while a person's rebase runs past its answer time keeps the note for the
rebased branch, its file written in the work tree. When that branch holds the note's path (the
agent remembered it before, and the rebase replays that commit), the file stopped the person's
rebase at that pick: "untracked working tree files would be overwritten by merge". The note is
refused then, as every remember during a rebase was, and nothing is written."""

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
def test_a_note_the_rebase_brings_back_is_not_written_under_it(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("second.md", "Second", "a second note, committed before the remembered one")
    repo.commit("second")
    config = load_config(repo.root, env={})
    first = remember(config, TITLE, BODY, deadline=time.monotonic() + 3.0)
    assert first["committed"] is True
    ref = str(first["ref"])
    repo.note("third.md", "Third", "a third note committed after the remembered one")
    repo.commit("third")
    picked = tmp_path / "picked"
    step = f"touch {picked}; sleep 4"  # after the first pick (second), before the note's
    person = subprocess.Popen(
        ["git", "rebase", "-q", "--force-rebase", "--exec", step, "HEAD~3"],
        cwd=repo.root,
        env=clean_env(),
        stderr=subprocess.PIPE,
    )
    try:
        wait_for("the rebase to pick", picked.exists)
        with pytest.raises(MemidxError) as refused:  # the agent sends it again
            remember(config, TITLE, BODY, deadline=time.monotonic() + 1.0)
        assert ref in refused.value.message and "rebase" in refused.value.message
    finally:
        _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err  # it stopped: notes/... would be overwritten by merge
    assert not repo.git("status", "--porcelain")
    assert not any_pending(config)
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects.count(f"memidx remember: {TITLE}") == 1


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_new_note_kept_for_the_rebased_branch_comes_with_its_commit_after_it(
    tmp_path: Path,
) -> None:
    """A new note kept for the branch being rebased was written in the work tree the rebase
    picks in (a later pick that adds its path stops there). Now it stays unwritten while HEAD
    is detached, and once the rebase ends it is committed once on that branch, its file with
    its commit (memory/fresh_note.py)."""
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("second.md", "Second", "a second note so that there is a commit to pick again")
    repo.commit("second")
    config = load_config(repo.root, env={})
    picked = tmp_path / "picked"
    argv = ["git", "rebase", "-q", "--force-rebase", "--exec", f"touch {picked}; sleep 3", "HEAD~1"]
    person = subprocess.Popen(argv, cwd=repo.root, env=clean_env(), stderr=subprocess.PIPE)
    try:
        wait_for("the rebase to pick", picked.exists)
        kept = remember(config, TITLE, BODY, deadline=time.monotonic() + 1.0)
        ref = str(kept["ref"])
        assert kept["committed"] is False and any_pending(config)
        assert not (repo.root / ref).exists()  # was: written under the running rebase
    finally:
        _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err
    wait_for("the kept note's commit", lambda: not any_pending(config))  # the finisher's
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert repo.git("show", f"main:{ref}").endswith(BODY + "\n")
    assert repo.git("log", "--format=%s").splitlines().count(f"memidx remember: {TITLE}") == 1
    assert (repo.root / ref).read_text(encoding="utf-8").endswith(BODY + "\n")
    assert not repo.git("status", "--porcelain")
