"""What memidx's shell runs while it holds `.git/index.lock` for a move (memidx.git.move_script):
every process it starts there lengthens the instant a person's `git add` or `git commit` is
refused ("index.lock': File exists"). Its reads of the lock (`$(cat index.lock)`, three), of
HEAD (`git rev-parse HEAD`) and its copy of the index (`cp -p`) were processes: hold median
43-49 ms, p90 64-86 ms at a load of 20-40; the lock and HEAD read by the shell, the copy made
by memidx once HEAD moved (not under HEAD's lock), the git command that follows the move,
`mv` and `rm` remain."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memidx.git import move_follow
from memidx.git.publish import DONE, move_head
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

SHIM = '#!/bin/sh\necho "{name} $1" >> "{log}"\nexec {real} "$@"\n'


def logged(folder: Path, log: Path, *names: str) -> None:
    """Programs `names` in `folder` that note each run (`cat`, `git rev-parse`) in `log`."""
    folder.mkdir()
    for name in names:
        real = shutil.which(name)
        assert real is not None
        shim = folder / name
        shim.write_text(SHIM.format(name=name, log=log, real=real))
        shim.chmod(0o755)


def git(repo: NotesRepo, env: dict[str, str], *args: str) -> str:
    argv = ["git", *args]
    done = subprocess.run(
        argv, cwd=repo.root, env=clean_env(**env), capture_output=True, check=True
    )
    return done.stdout.decode().strip()


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
def test_the_move_s_shell_reads_the_lock_and_head_itself(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    old = repo.commit("notes")
    ref = repo.note("agent.md", "Agent's note", "remembered")
    temp = {"GIT_INDEX_FILE": str(tmp_path / "temp-index")}  # the person's index untouched
    git(repo, temp, "read-tree", old)
    git(repo, temp, "add", ref)
    tree = git(repo, temp, "write-tree")
    new = git(repo, temp, *GIT_IDENTITY, "commit-tree", tree, "-p", old, "-m", "agent")
    log = tmp_path / "ran.log"
    logged(tmp_path / "bin", log, "cat", "cp", "git")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    git_dir = repo.root / ".git"

    then = ("reset", "-q", new, "--", f":(literal){ref}")
    assert move_head(repo.root, git_dir, new, old, "memidx: test", then=then) == DONE

    ran = log.read_text().splitlines()
    assert [line for line in ran if line.startswith(("cat", "cp")) or "rev-parse" in line] == []
    assert repo.git("rev-parse", "HEAD").strip() == new
    assert not (git_dir / "index.lock").exists()
    assert repo.git("status", "--porcelain", "--", "notes").strip() == ""


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
def test_memidx_copies_the_index_once_head_s_lock_is_let_go(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memidx's copy of git's index was made while git held HEAD's lock (before `commit`): a
    34 MB index (400,000 files) held that lock 41-84 ms more, where a person's git waits for it
    100 ms at most. It is made once HEAD moved, index.lock still memidx's, its time kept (by
    memidx's own follow now: memidx.git.move_follow)."""
    repo.note("welcome.md", "Welcome", "the shared memory")
    old = repo.commit("notes")
    ref = repo.note("agent.md", "Agent's note", "remembered")
    temp = {"GIT_INDEX_FILE": str(tmp_path / "temp-index")}
    git(repo, temp, "read-tree", old)
    git(repo, temp, "add", ref)
    tree = git(repo, temp, "write-tree")
    new = git(repo, temp, *GIT_IDENTITY, "commit-tree", tree, "-p", old, "-m", "agent")
    git_dir = repo.root / ".git"
    seen: list[tuple[bool, bool, str]] = []  # HEAD's lock held, index.lock held, HEAD
    copy = move_follow._copied  # pyright: ignore[reportPrivateUsage]

    def looked_at(at: Path, to: Path) -> bool:
        head_locked = (at / "HEAD.lock").exists() or any((at / "refs").rglob("*.lock"))
        head = git(repo, {}, "rev-parse", "HEAD")
        seen.append((head_locked, (at / "index.lock").exists(), head))
        return copy(at, to)

    monkeypatch.setattr(move_follow, "_copied", looked_at)
    then = ("reset", "-q", new, "--", f":(literal){ref}")

    assert move_head(repo.root, git_dir, new, old, "memidx: test", then=then) == DONE

    assert seen == [(False, True, new)]  # HEAD moved and its lock let go; index.lock memidx's
    assert not (git_dir / "index.lock").exists()
    assert not (git_dir / "memidx-follow-index").exists()
    assert repo.git("status", "--porcelain", "--", "notes").strip() == ""
