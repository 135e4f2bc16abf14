"""A git's command line reads empty a moment after its exec, before the kernel has set it
(its comm already `git`): committers took such a git for one running no command, and a
`git commit` that had just started was not waited for; the git looked at again read so too
(memidx/git/invocation.py's command_of, memidx/git/branch_movers.py)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from memidx.git import publish
from memidx.git.branch_movers import branch_movers
from memidx.git.publish import committers
from tests.helpers import NotesRepo, clean_env


@pytest.fixture
def just_started(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch) -> Generator[str]:
    """A git in the clone whose command line reads empty, as it does in its exec: its pid."""
    git = subprocess.Popen(
        ["git", "cat-file", "--batch"], cwd=repo.root, env=clean_env(), stdin=subprocess.PIPE
    )
    _wait_for_its_exec(git.pid, repo.root)
    read = publish.read_proc

    def in_its_exec(path: str) -> bytes:
        return b"" if path == f"/proc/{git.pid}/cmdline" else read(path)

    monkeypatch.setattr(publish, "read_proc", in_its_exec)
    try:
        yield str(git.pid)
    finally:
        git.kill()
        git.wait()


def test_a_git_whose_command_line_reads_empty_is_waited_for(
    repo: NotesRepo, just_started: str
) -> None:
    assert just_started in committers(repo.root)


def test_a_git_whose_command_line_reads_empty_may_move_a_branch(
    repo: NotesRepo, just_started: str
) -> None:
    assert just_started in branch_movers(repo.root)


def _wait_for_its_exec(pid: int, root: Path) -> None:
    """Until the git runs git in the clone: Popen returns once it forked, and under load its
    exec came after the look (comm still python's, cwd not the clone: no git at all, CI)."""
    proc = Path(f"/proc/{pid}")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if (proc / "comm").read_text() == "git\n" and (
                proc / "cwd"
            ).resolve() == root.resolve():
                return
        except OSError:
            pass
        time.sleep(0.005)
    pytest.fail(f"git {pid} did not start in 30 s")
