"""A note an MCP remember kept pending during a person's `git rebase -i`: the rebase stops for
`edit`, the person commits everything on the detached HEAD (`git add -A; git commit`), then
`git rebase --abort`. The agent was told the note is written: it is never lost. A new note is
kept unwritten while the rebase runs (memory/fresh_note.py: no file the rebase or the person's
commit could take, which the abort's reset then took away: the next sync dropped the entry and
the note lived on only in an orphaned commit), and committed once from its entry after it; a
written note whose file such a reset took is written again (tests/unit/test_pending_vanished.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.mcp.answers import remember
from memidx.memory.pending_mark import any_pending
from tests.cli.test_late_merge import wait_for
from tests.helpers import started_memory
from tests.pending_runs import finishers, rebase_held_open

TITLE = "Worker stops after an update"
BODY = "The worker stopped after an update: its unit file lost the restart line again."


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_pending_note_a_rebase_abort_took_away_is_written_again(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("second.md", "Second", "a second note, committed to be rebased")
    repo.commit("second")
    config = load_config(repo.root, env={})
    with rebase_held_open(repo, tmp_path, "edit") as person:
        kept = remember(config, TITLE, BODY, deadline=time.monotonic() + 1.0)
    assert kept["committed"] is False, kept
    ref = str(kept["ref"])
    assert person.returncode == 0, person.err  # stopped for edit
    assert not (repo.root / ref).exists()  # kept unwritten: nothing for the person to take
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "--allow-empty", "-m", "the person's work, detached")
    repo.git("rebase", "--abort")
    done = repo.memidx("sync")  # or the finisher the remember started, whichever comes first
    wait_for("the finisher to end", lambda: not list(finishers(repo.root)))
    assert done.code == 0, done.err
    assert "changed or was removed" not in done.err
    assert not any_pending(config)
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects[0] == f"memidx remember: {TITLE}" and subjects.count(subjects[0]) == 1
    assert BODY in repo.git("show", f"HEAD:{ref}")
    assert not repo.git("status", "--porcelain")
