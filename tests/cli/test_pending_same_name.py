"""Two notes of one title an MCP remember kept during a person's running rebase: both are kept
unwritten (memory/fresh_note.py), and the name each was given looked at the work tree and HEAD
alone, so both were given the same path. Once the rebase ended, the first was committed there
and the second, its path now holding the first, was taken for a person's change and dropped:
"changed or was removed ... commit it yourself", with no file anywhere. The second is given
the next free name (and one whose path another file took since is committed under it)."""

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
BODIES = (
    "The worker stopped after an update: its unit file lost the restart line again.",
    "The worker stopped after an update: the new release needs a larger memory limit.",
)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_two_notes_of_one_title_kept_during_a_rebase_are_both_committed(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.note("second.md", "Second", "a second note, committed to be rebased")
    repo.commit("second")
    config = load_config(repo.root, env={})
    with rebase_held_open(repo, tmp_path) as person:
        kept = [remember(config, TITLE, body, deadline=time.monotonic() + 0.5) for body in BODIES]
    assert person.returncode == 0, person.err
    assert [answer["committed"] for answer in kept] == [False, False], kept
    ref = "notes/worker-stops-after-an-update"
    assert [answer["ref"] for answer in kept] == [f"{ref}.md", f"{ref}-2.md"]  # as committed
    done = repo.memidx("sync")  # or the finisher a remember started, whichever comes first
    wait_for("the finishers to end", lambda: not list(finishers(repo.root)))
    assert done.code == 0, done.err
    assert not any_pending(config)
    committed = repo.git("ls-tree", "-r", "--name-only", "HEAD", "notes/").split()
    texts = [repo.git("show", f"HEAD:{ref}") for ref in committed]
    assert all(any(body in text for text in texts) for body in BODIES), (committed, done.err)
    assert repo.git("log", "--format=%s").splitlines().count(f"memidx remember: {TITLE}") == 2
    assert not repo.git("status", "--porcelain")
