"""A live git in a linked work tree holds its index.lock closed while its hooks run: the
lock was taken for a killed git's (only `.git/worktrees` was looked in for a git running
there), and `remember` and `status` told the person to remove it. Real git, a hook that
waits for a file (bounded), every process stopped."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from memidx.git.lock_holders import left_behind
from tests.helpers import NotesRepo, clean_env


def test_a_git_running_its_hook_in_a_linked_work_tree_holds_its_lock(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.commit("start")
    tree = tmp_path / "tree"
    repo.git("worktree", "add", "-q", "-b", "side", str(tree))
    go, started = tmp_path / "go", tmp_path / "started"
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        f"#!/bin/sh\ntouch '{started}'\nn=0\n"
        f"while [ ! -e '{go}' ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done\n"
    )
    hook.chmod(0o755)
    (tree / "notes" / "start.md").write_text("# Start\n\nThe first note, edited in the tree.\n")
    lock = repo.root / ".git" / "worktrees" / "tree" / "index.lock"
    git = subprocess.Popen(
        ["git", "commit", "-qam", "edited"], cwd=tree, env=clean_env(),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(300):
            if started.exists():  # git let go of the lock's file, not of the lock
                break
            time.sleep(0.05)
        assert started.exists() and lock.exists()
        assert not left_behind(lock, tree)  # the hook runs: the git that holds it is alive
    finally:
        go.touch()
        git.wait(timeout=30)
    assert not lock.exists()
    lock.touch()  # and one no git holds is still named left behind
    assert left_behind(lock, tree)
    lock.unlink()


def test_a_git_running_its_hook_in_a_clone_whose_git_folder_is_elsewhere_holds_its_lock(
    tmp_path: Path,
) -> None:
    """`git init --separate-git-dir` and every submodule (`.git/modules/<name>`): the git
    folder's parent is no work tree, and a live `git commit` there, its hook running, was
    taken for a killed one."""
    repo = NotesRepo(tmp_path / "memory", init=False)
    (tmp_path / "store").mkdir()
    repo.git("init", "-q", "-b", "main", "--separate-git-dir", str(tmp_path / "store" / "git"))
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.commit("start")
    go, started = tmp_path / "go", tmp_path / "started"
    hook = tmp_path / "store" / "git" / "hooks" / "pre-commit"
    hook.write_text(
        f"#!/bin/sh\ntouch '{started}'\nn=0\n"
        f"while [ ! -e '{go}' ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done\n"
    )
    hook.chmod(0o755)
    (repo.root / "notes" / "start.md").write_text("# Start\n\nThe first note, edited.\n")
    lock = tmp_path / "store" / "git" / "index.lock"
    git = subprocess.Popen(
        ["git", "commit", "-qam", "edited"], cwd=repo.root, env=clean_env(),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(300):
            if started.exists():
                break
            time.sleep(0.05)
        assert started.exists() and lock.exists()
        assert not left_behind(lock, repo.root)  # the hook runs: the git that holds it lives
    finally:
        go.touch()
        git.wait(timeout=30)
    lock.touch()
    assert left_behind(lock, repo.root)
    lock.unlink()


def test_a_killed_git_s_lock_is_named_while_a_reader_git_runs_in_the_clone(
    tmp_path: Path,
) -> None:
    """`git log` in its pager or an editor's `git cat-file --batch` never locks the index: a
    killed git's lock was called a live git's while one ran, and remember said the note is
    committed once that git command ends."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.commit("start")
    lock = repo.root / ".git" / "index.lock"
    lock.touch()
    reader = subprocess.Popen(
        ["git", "-c", "core.quotePath=false", "cat-file", "--batch"], cwd=repo.root,
        env=clean_env(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(100):  # until the process is git itself, in the clone
            if Path(f"/proc/{reader.pid}/comm").read_text().strip() == "git":
                break
            time.sleep(0.02)
        assert left_behind(lock, repo.root)
    finally:
        assert reader.stdin is not None
        reader.stdin.close()
        reader.wait(timeout=30)
    lock.unlink()


def test_a_killed_git_s_lock_is_named_while_an_alias_of_a_reader_runs_in_the_clone(
    tmp_path: Path,
) -> None:
    """`git lg` (alias lg = log) in its pager, an editor's `git batch` (cat-file --batch): git's
    own process reads the alias, no reader's name, and the killed git's lock was called a live
    git's while it ran."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.commit("start")
    repo.git("config", "alias.batch", "cat-file --batch")
    lock = repo.root / ".git" / "index.lock"
    lock.touch()
    reader = subprocess.Popen(
        ["git", "batch"], cwd=repo.root, env=clean_env(), stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(100):  # until the process is git itself, in the clone
            if Path(f"/proc/{reader.pid}/comm").read_text().strip() == "git":
                break
            time.sleep(0.02)
        assert left_behind(lock, repo.root)
    finally:
        assert reader.stdin is not None
        reader.stdin.close()
        reader.wait(timeout=30)
    lock.unlink()
