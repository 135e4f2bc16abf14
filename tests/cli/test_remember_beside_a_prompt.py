"""A person's `git add -p` (or `git checkout -p`, a restore) waits at its prompt for as long as
the person thinks; it writes git's index only through a `git apply --cached` per answer, which
reads the index then. memidx's move waited for it as for a git taking the index (wt-lock8's
INDEX_TAKERS): every remember beside it waited its 10 s and left its note pending ("a git
command taking the index here is still under way"). It is not waited for, and the hunk the
person stages after memidx's commit keeps memidx's note in the index."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env, started_memory

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"


@pytest.mark.skipif(os.name != "posix", reason="git's processes are seen in /proc")
@pytest.mark.parametrize(
    ("args", "prompt"),
    [
        (("add", "-p"), "Stage this hunk"),
        (("checkout", "-p"), "Discard"),
        (("checkout", "-qp"), "Discard"),  # run together: taken for a switch, waited its 10 s
        (("checkout", "--patc"), "Discard"),  # git's start of --patch: the same
        (("add", "-vp"), "Stage this hunk"),  # run together: waited its 10 s
        (("restore", "-Wp"), "Discard"),
    ],
)
def test_a_remember_commits_beside_a_git_waiting_at_its_patch_prompt(
    tmp_path: Path, args: tuple[str, ...], prompt: str
) -> None:
    repo: NotesRepo = started_memory(tmp_path)
    repo.write("person/work.txt", "start\n")
    repo.commit("the person's file")
    repo.write("person/work.txt", "start\nmore\n")
    said = tmp_path / "prompt.out"
    with said.open("w") as out:
        git = subprocess.Popen(
            ["git", *GIT_IDENTITY, *args],
            cwd=repo.root, env=clean_env(), stdin=subprocess.PIPE, stdout=out, stderr=out,
            text=True,
        )  # fmt: skip
    try:
        until = time.monotonic() + 30
        while prompt not in said.read_text() and time.monotonic() < until:  # bounded by time
            time.sleep(0.05)
        assert prompt in said.read_text()
        began = time.monotonic()
        run = repo.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
        took = time.monotonic() - began
        assert run.code == 0, run.err
        assert "not committed" not in run.err
        assert took < 8, f"waited {took:.1f} s for a git at its prompt"
        assert git.communicate("n\n", timeout=30)[0] is None
    finally:
        if git.poll() is None:
            git.kill()
            git.wait()
    assert repo.git("ls-files", "notes/wsl-memory.md") == "notes/wsl-memory.md\n"
    assert "notes/wsl-memory.md" not in repo.git("status", "--porcelain")


@pytest.mark.skipif(os.name != "posix", reason="git's processes are seen in /proc")
def test_a_remember_commits_beside_a_git_stash_list_in_its_pager(tmp_path: Path) -> None:
    """`git stash list` only reads; in the person's pager it ran for as long as they read."""
    import pty

    repo: NotesRepo = started_memory(tmp_path)
    repo.write("person/work.txt", "start\n")
    repo.commit("the person's file")
    repo.write("person/work.txt", "start\nmore\n")
    repo.git("stash")
    mark = tmp_path / "paging"
    pager = f"touch {mark}; sleep 30"
    main, terminal = pty.openpty()
    git = subprocess.Popen(
        ["git", "-c", f"core.pager={pager}", "stash", "list"],
        cwd=repo.root, env=clean_env(), stdin=terminal, stdout=terminal, stderr=terminal,
        start_new_session=True,  # its pager with it: all stopped at the end
    )  # fmt: skip
    try:
        until = time.monotonic() + 30
        while not mark.exists() and time.monotonic() < until:  # bounded by time
            time.sleep(0.05)
        assert mark.exists()
        run = repo.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
        assert run.code == 0, run.err
        assert "not committed" not in run.err
        assert git.poll() is None  # still in its pager
    finally:
        os.killpg(git.pid, signal.SIGKILL)
        git.wait()
        os.close(main)
        os.close(terminal)
    assert "notes/wsl-memory.md" not in repo.git("status", "--porcelain")
