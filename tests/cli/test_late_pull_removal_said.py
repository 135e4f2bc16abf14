"""A late `git pull` beside memidx's commit that removes files (`memidx forget`, share's twin
rename: memidx.git.commit's `removed`): HEAD is never put back for it, so such a pull fails as
beside a remember (on the files the commit wrote) and nothing said so; the line for `memidx
status` is left as for a put-back given up (memidx.git.late_pull.said_of_a_removal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.git import commit as commit_module
from memidx.git import late_pull
from tests.helpers import started_memory


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
