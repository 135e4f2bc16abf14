"""memidx's own commits (`remember`, `forget`, the haystack's) move HEAD, then bring git's
index to the new commit in the same child process: a person's `git commit` in between
committed the index as it was on top of memidx's commit, without its note (the note deleted
in the person's commit). A stand-in `git` earlier on PATH runs that commit, once, just before
the index follows (memidx.git.move_script)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.remember import remember
from tests.helpers import NotesRepo

# the index follows with `git reset -q <new> -- :(literal)<path>` (or a checkout of it)
COMMITTING = """#!/bin/sh
case "$*" in
"reset -q "*":(literal)"* | *"checkout -q "*":(literal)"*)
    if [ ! -e {marker} ]; then
        : > {marker}
        env -u GIT_INDEX_FILE {git} -c user.name=P -c user.email=p@example.invalid \\
            commit -q -m "the person's note" > {said} 2>&1
    fi ;;
esac
exec {git} "$@"
"""


def test_a_commit_between_remember_s_move_and_its_index_does_not_delete_the_note(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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
    script = folder / "git"
    script.write_text(COMMITTING.format(marker=folder / "committed", git=git, said=said))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder), prepend=os.pathsep)

    done = remember(
        load_config(repo.root, env={}),
        "Build cache keys",
        "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
    )
    monkeypatch.undo()

    assert done.commit is not None and (folder / "committed").exists()
    note = "notes/build-cache-keys.md"
    assert note in repo.git("ls-tree", "-r", "--name-only", "HEAD"), said.read_text()
    assert "index.lock': File exists" in said.read_text()  # refused, as during git merge
    assert repo.git("status", "--porcelain=v1", "--", "notes") == "A  notes/mine.md\n"
    assert not (repo.root / ".git" / "index.lock").exists()
