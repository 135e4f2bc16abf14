"""A note an MCP remember kept pending behind a person's `git commit -a` (its editor open,
.git/index.lock held: memidx never built its commit, git never stored its bytes), which the
person then deletes with `rm`: that deletion is theirs. The next `memidx sync` wrote it again
from its pending entry and committed it (memory/pending_vanished.py), against their will."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.mcp.answers import remember
from memidx.memory.pending_mark import any_pending
from tests.cli.test_late_merge import wait_for
from tests.helpers import clean_env, started_memory
from tests.pending_runs import finishers


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_pending_note_the_person_removed_is_not_written_back(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write("notes/start.md", "# Start\n\nThe first note, edited by the person.\n")
    editing = tmp_path / "editing"
    person = subprocess.Popen(
        ["git", "commit", "-a", "-q"],
        cwd=repo.root,
        env=clean_env(GIT_EDITOR=f"touch {editing}; sleep 3; echo 'the person' >"),
    )
    try:
        wait_for("the person's editor", editing.exists)
        kept = remember(config, "Worker stops", "The worker stops after an update.", deadline=0.0)
        ref = str(kept["ref"])
        assert kept["committed"] is False and (repo.root / ref).is_file(), kept
        (repo.root / ref).unlink()  # the person's `rm`
    finally:
        assert person.wait(timeout=60) == 0
    done = repo.memidx("sync")
    wait_for("the finisher to end", lambda: not finishers(repo.root))
    assert done.code == 0 and "changed or was removed" in done.err, done.err
    assert not (repo.root / ref).exists() and not any_pending(config)
    assert repo.git("log", "--format=%s").splitlines() == ["the person", "start"]
