"""memidx's own commits (`remember`, `forget`, the haystack's) move HEAD, then bring git's
index to the new commit: a person's `git commit` in between committed the index as it was on
top of memidx's commit, without its note (the note deleted in the person's commit). The
clone's reference-transaction hook runs that commit, once, the moment HEAD has moved (the
index brought along before the move, memidx.git.index_swap, or after it in the same child
process, memidx.git.move_script)."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import publish
from memidx.memory.remember import remember
from tests.helpers import NotesRepo

# the moment HEAD moved (the transaction committed), a person's commit of what they staged
COMMITTING = """#!/bin/sh
[ "$1" = committed ] && grep -q " HEAD$" || exit 0
[ -e {marker} ] && exit 0
: > {marker}
env -u GIT_INDEX_FILE {git} -c user.name=P -c user.email=p@example.invalid \
    commit -q --no-verify -m "the person's note" > {said} 2>&1
exit 0
"""


def test_a_commit_between_remember_s_move_and_its_index_does_not_delete_the_note(
    repo: NotesRepo, tmp_path: Path
) -> None:
    repo.note("seed.md", "Seed", "a first note about docker layers")
    repo.commit("seed")
    repo.note("mine.md", "Mine", "the person's own note about caches, staged")
    repo.git("add", "notes/mine.md")
    git = shutil.which("git")
    assert git is not None
    folder = tmp_path / "stand-in"
    folder.mkdir()
    said = tmp_path / "commit.out"
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(COMMITTING.format(marker=folder / "committed", git=git, said=said))
    hook.chmod(0o755)

    done = remember(
        load_config(repo.root, env={}),
        "Build cache keys",
        "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
    )

    assert done.commit is not None and (folder / "committed").exists()
    note = "notes/build-cache-keys.md"
    assert note in repo.git("ls-tree", "-r", "--name-only", "HEAD"), said.read_text()
    if "index.lock': File exists" in said.read_text():  # refused, as during git merge
        assert repo.git("status", "--porcelain=v1", "--", "notes") == "A  notes/mine.md\n"
    else:  # memidx let the lock go once its index followed, before the hook's end (head_watch)
        assert repo.git("log", "-1", "--format=%s").strip() == "the person's note"
        assert "notes/mine.md" in repo.git("ls-tree", "-r", "--name-only", "HEAD")
        assert repo.git("status", "--porcelain=v1", "--", "notes") == ""
    assert not (repo.root / ".git" / "index.lock").exists()


def test_a_file_changed_after_its_add_still_shows_changed_once_remember_s_index_follows(
    repo: NotesRepo,
) -> None:
    """git tells a change made in the second of the add (same size) by the index's own time
    (racy git): the index copy memidx brings to its commit bore the time of the copy, so
    `git diff` and `git commit -a` no longer saw the person's change (it keeps the time now)."""
    repo.note("seed.md", "Seed", "a first note about docker layers")
    repo.commit("seed")
    repo.git("config", "core.trustctime", "false")
    then = 1_700_000_000_123_456_789  # the add, the change and the index in one instant
    work = repo.root / "draft.txt"
    work.write_text("aaaa\n")
    os.utime(work, ns=(then, then))
    repo.git("add", "draft.txt")
    work.write_text("bbbb\n")  # the same size
    os.utime(work, ns=(then, then))
    os.utime(repo.root / ".git" / "index", ns=(then, then))

    done = remember(
        load_config(repo.root, env={}),
        "Build cache keys",
        "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
    )

    assert done.commit is not None
    assert repo.git("diff", "--name-only") == "draft.txt\n"
    assert repo.git("status", "--porcelain=v1", "--", "draft.txt") == "AM draft.txt\n"


def test_the_index_lock_of_a_killed_move_shell_is_let_go_and_the_index_follows(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shell that lets memidx's index.lock go, killed once memidx took it, left the lock:
    every `git add` of the person was refused until they removed it by hand."""
    repo.note("seed.md", "Seed", "a first note about docker layers")
    repo.commit("seed")
    take = publish.take_index_lock

    def take_then_kill_the_shell(git_dir: Path, token: str) -> bool:
        taken = take(git_dir, token)
        os.kill(int(token.split()[1]), signal.SIGKILL)  # "memidx <the shell's pid> <new>"
        return taken

    monkeypatch.setattr(publish, "take_index_lock", take_then_kill_the_shell)

    done = remember(
        load_config(repo.root, env={}),
        "Build cache keys",
        "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
    )

    assert done.commit is not None
    assert not (repo.root / ".git" / "index.lock").exists()
    assert repo.git("status", "--porcelain=v1") == ""
