"""memidx let go of `.git/index.lock` after a move only once `git update-ref` answered, which it
does after it ran the reference-transaction hook at `committed` (memidx's shim and any hook it
chains): ~20-30 ms of a ~30-45 ms hold at a load of ~10, all of a person's slow hook, and a
person's `git switch` met "index.lock: File exists" meanwhile. memidx now lets go once HEAD's
ref file says the move (memidx.git.head_watch): the hook here waits for the lock to go (5 s
at most) and says whether it went while the hook still ran."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memidx.git.head_watch import moved_file
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env, started_memory

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"
WAITING_HOOK = """#!/bin/sh
[ "$1" = committed ] && grep -q " HEAD$" || exit 0
i=0; while [ -e "{lock}" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
if [ -e "{lock}" ]; then echo held >>"{seen}"; else echo free >>"{seen}"; fi
"""


def waiting_hook(repo: NotesRepo, seen: Path) -> None:
    """A reference-transaction hook that waits for index.lock to go before HEAD's move ends."""
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(WAITING_HOOK.format(lock=repo.root / ".git" / "index.lock", seen=seen))
    hook.chmod(0o755)


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
def test_remember_lets_the_index_go_before_the_hook_of_its_move_ends(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    seen = tmp_path / "seen"
    waiting_hook(repo, seen)

    trace = tmp_path / "trace"

    said = repo.memidx_process(
        "remember", "--title", "WSL memory", stdin=BODY, MEMIDX_MOVE_TRACE=str(trace)
    )

    assert said.code == 0, said.err
    assert seen.read_text().split() == ["free"]
    steps = dict(word.split("=") for word in trace.read_text().split()[1:] if "=" in word)
    assert trace.read_text().startswith("done fast=True")  # the copy renamed by memidx
    assert float(steps["locked"]) <= float(steps["moved"]) <= float(steps["let-go"])
    assert "notes/wsl-memory.md" in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert repo.git("status", "--porcelain").strip() == ""  # the index followed the move
    assert not (repo.root / ".git" / "index.lock").exists()


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
def test_a_move_of_a_detached_head_lets_the_index_go_before_its_hook_ends(
    repo: NotesRepo, tmp_path: Path
) -> None:
    from memidx.git.publish import DONE, move_head

    repo.note("welcome.md", "Welcome", "the shared memory")
    old = repo.commit("notes")
    repo.git("checkout", "-q", "--detach")
    ref = repo.note("agent.md", "Agent's note", "remembered")
    temp = {"GIT_INDEX_FILE": str(tmp_path / "temp-index")}  # the person's index untouched
    for args in (("read-tree", old), ("add", ref)):
        subprocess.run(["git", *args], cwd=repo.root, env=clean_env(**temp), check=True)
    tree = subprocess.run(
        ["git", "write-tree"], cwd=repo.root, env=clean_env(**temp), capture_output=True,
        text=True, check=True,
    ).stdout.strip()  # fmt: skip
    new = repo.git(*GIT_IDENTITY, "commit-tree", tree, "-p", old, "-m", "agent").strip()
    seen = tmp_path / "seen"
    waiting_hook(repo, seen)
    follow = ("reset", "-q", new, "--", f":(literal){ref}")

    moved = move_head(repo.root, repo.root / ".git", new, old, "memidx: test", then=follow,
                      ready=follow)  # fmt: skip

    assert moved == DONE
    assert seen.read_text().split() == ["free"]
    assert repo.git("rev-parse", "HEAD").strip() == new
    assert repo.git("status", "--porcelain", "--", "notes").strip() == ""


@pytest.mark.parametrize(
    ("head", "common", "expected"),
    [
        ("ref: refs/heads/main\n", None, "refs/heads/main"),
        ("ref: refs/heads/main\n", "../..", "main-dir:refs/heads/main"),  # a linked work tree
        ("0123456789abcdef0123456789abcdef01234567\n", None, "HEAD"),  # detached
        ("ref: refs/heads/.invalid\n", None, None),  # reftable: no loose file says it
        ("ref: refs/remotes/origin/x\n", None, None),
        ("", None, None),
    ],
)
def test_the_file_that_says_head_moved(
    tmp_path: Path, head: str, common: str | None, expected: str | None
) -> None:
    git_dir = tmp_path / "repo" / ".git" / "worktrees" / "w" if common else tmp_path / "g"
    git_dir.mkdir(parents=True)
    (git_dir / "HEAD").write_text(head)
    if common:
        (git_dir / "commondir").write_text(f"{common}\n")
    found = moved_file(git_dir)
    where = {"HEAD": git_dir / "HEAD", None: None}.get(expected)
    if expected and expected.startswith("main-dir:"):
        where = tmp_path / "repo" / ".git" / expected.removeprefix("main-dir:")
    elif expected and expected.startswith("refs/"):
        where = git_dir / expected
    assert (found.resolve() if found else None) == (where.resolve() if where else None)


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
def test_a_move_s_trace_counts_from_its_own_lock(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from memidx.git import move_trace
    from memidx.git.publish import DONE, move_head

    repo.note("welcome.md", "Welcome", "the shared memory")
    old = repo.commit("notes")
    tree = repo.git("rev-parse", f"{old}^{{tree}}").strip()
    new = repo.git(*GIT_IDENTITY, "commit-tree", tree, "-p", old, "-m", "agent").strip()
    trace = tmp_path / "trace"
    monkeypatch.setenv("MEMIDX_MOVE_TRACE", str(trace))
    move_trace.mark("locked")  # an earlier swap's (memidx.git.index_copy), in this process
    time.sleep(0.5)

    moved = move_head(repo.root, repo.root / ".git", new, old, "memidx: test",
                      then=("reset", "-q"))  # fmt: skip

    assert moved == DONE
    words = trace.read_text().split()
    assert [word for word in words if word.startswith("locked=")] == ["locked=0.0"]
