"""A late `git pull` beside memidx's commit that removes files (`memidx forget`, share's twin
rename: memidx.git.commit's `removed`): HEAD is never put back for it, so such a pull fails as
beside a remember (on the files the commit wrote) and nothing said so; the line for `memidx
status` is left as for a put-back given up (memidx.git.late_pull.said_of_a_removal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.git import late_pull
from memidx.index.failures import last_failure
from memidx.memory.twins import part_twins
from tests.helpers import NotesRepo, started_memory
from tests.memories import remembered_apart


def _a_pull(_root: Path) -> dict[str, str]:
    """committers' answer after the move: one person's `git pull` (no such process now)."""
    return {"4242": "pull 1"}


def _fetching(_pid: str) -> bool:
    """late_pull._fetching: that pull has not begun its merge."""
    return True


def test_a_forget_beside_a_late_pull_leaves_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    note = repo.note("gone.md", "Gone", "a note about zebra stripes to forget")
    repo.commit("to forget")
    assert repo.memidx("sync").code == 0
    monkeypatch.setattr(commit_module, "committers", _a_pull)
    monkeypatch.setattr(late_pull, "_fetching", _fetching)

    forgot = repo.memidx("forget", note)

    assert forgot.code == 0, forgot.err
    assert note not in repo.git("ls-tree", "-r", "--name-only", "HEAD").split()
    monkeypatch.undo()
    out = repo.memidx_process("status").out
    line = next((ln for ln in out.splitlines() if ln.startswith("git pull:")), out)
    assert "pid 4242" in line and note in line, line
    assert "removed files" in line and "run `git pull` again" in line, line


def test_a_twin_rename_beside_a_late_pull_leaves_the_line(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """share's rename of a remembered twin aside removes its old name: nothing put back."""
    remembered_apart(repo)
    config = load_config(repo.root, env={})
    monkeypatch.setattr(commit_module, "committers", _a_pull)
    monkeypatch.setattr(late_pull, "_fetching", _fetching)

    moved = part_twins(config)

    monkeypatch.undo()
    assert moved, "the twin was renamed"
    line = last_failure(config.pull_error_path)
    assert line is not None and "pid 4242" in line.message, line
    assert "removed files" in line.message, line
