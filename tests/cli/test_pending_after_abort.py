"""A note an MCP remember kept pending during a person's `git rebase -i`: the rebase stops for
`edit`, the person commits everything on the detached HEAD (`git add -A; git commit`), then
`git rebase --abort`. The agent was told the note is written: it is never lost. A new note is
kept unwritten while the rebase runs (memory/fresh_note.py: no file the rebase or the person's
commit could take, which the abort's reset then took away: the next sync dropped the entry and
the note lived on only in an orphaned commit), and committed once from its entry after it; a
written note whose file such a reset took is written again (tests/unit/test_pending_vanished.py)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.mcp.answers import remember
from memidx.memory.pending_mark import any_pending
from tests.cli.test_late_merge import wait_for
from tests.helpers import clean_env, started_memory

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
    picked = tmp_path / "picked"
    todo = tmp_path / "todo"
    todo.write_text(f"exec touch {picked}; sleep 4\nedit {repo.git('rev-parse', 'HEAD').strip()}\n")
    person = subprocess.Popen(
        ["git", "rebase", "-q", "-i", "HEAD~1"],
        cwd=repo.root,
        env=clean_env(GIT_SEQUENCE_EDITOR=f"cp {todo}"),
        stderr=subprocess.PIPE,
    )
    try:
        wait_for("the rebase to run", picked.exists)
        kept = remember(config, TITLE, BODY, deadline=time.monotonic() + 1.0)
    finally:
        _, err = person.communicate(timeout=60)
    assert kept["committed"] is False, kept
    ref = str(kept["ref"])
    assert person.returncode == 0, err  # stopped for edit
    assert not (repo.root / ref).exists()  # kept unwritten: nothing for the person to take
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "--allow-empty", "-m", "the person's work, detached")
    repo.git("rebase", "--abort")
    done = repo.memidx("sync")  # or the finisher the remember started, whichever comes first
    wait_for("the finisher to end", lambda: not list(_finishers(repo.root)))
    assert done.code == 0, done.err
    assert "changed or was removed" not in done.err
    assert not any_pending(config)
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects[0] == f"memidx remember: {TITLE}" and subjects.count(subjects[0]) == 1
    assert BODY in repo.git("show", f"HEAD:{ref}")
    assert not repo.git("status", "--porcelain")


def _finishers(root: Path) -> list[int]:
    """The finishers running for this clone (Linux /proc): the remember started one."""
    found: list[int] = []
    for pid_dir in Path("/proc").glob("[0-9]*"):
        try:
            argv = (pid_dir / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"memidx.memory.pending_finisher" in argv and str(root).encode() in argv:
            found.append(int(pid_dir.name))
    return found
