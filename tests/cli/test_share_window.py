"""What comes into the clone between `memidx share`'s look and its move: git read-tree, as
git merge does, writes over an ignored file where the merge adds a note, and share's look
refuses only what is there when it looks. A stand-in `git` earlier on PATH makes the change,
once, just before the git command it is set for."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import MemidxError
from memidx.memory import share_move
from memidx.memory.share import share
from memidx.memory.share_check import Merge
from tests.cli.test_share_in_the_way import THEIRS, behind, state
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

DROPPING = """#!/bin/sh
if [ "$1" = {command} ] && [ ! -e {marker} ]; then
    : > {marker}
    mkdir -p {folder} && echo "the person's ignored draft" > {file}
fi
exec {git} "$@"
"""


def drop_at(tmp_path: Path, repo: NotesRepo, command: str, at: str) -> Path:
    """A stand-in git on PATH that writes a file at `at` just before `git <command>`."""
    git = shutil.which("git")
    assert git is not None
    folder = tmp_path / "stand-in"
    folder.mkdir()
    file = repo.root / at
    script = folder / "git"
    script.write_text(
        DROPPING.format(
            command=command, marker=folder / "dropped", folder=file.parent, file=file, git=git
        )
    )
    script.chmod(0o755)
    return folder


@pytest.mark.parametrize(
    ("diverged", "command"),
    [(True, "commit-tree"), (False, "rev-parse"), (True, "rev-parse")],
    ids=["merge-at-commit", "fast-forward-at-publish", "merge-at-publish"],
)
def test_an_ignored_file_that_came_after_the_look_is_not_written_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, diverged: bool, command: str
) -> None:
    """git merge writes over it without a word (--overwrite-ignore, its default); so did
    share's read-tree, for a file that came after its look refused what was there. Now share
    looks once more just before the move: nothing merged, the file as it was."""
    two = behind(tmp_path, diverged=diverged)
    exclude = two.root / ".git" / "info" / "exclude"
    exclude.write_text(exclude.read_text() + "notes/machine-2-*\n")
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    folder = drop_at(tmp_path, two, command, THEIRS)
    config = load_config(two.root, env={})
    looked = share_move.merge_look

    def armed(config: Config, branch: str, head: str | None = None) -> Merge | None:
        found = looked(config, branch, head)
        monkeypatch.setenv("PATH", str(folder), prepend=os.pathsep)  # acts after the look
        return found

    monkeypatch.setattr(share_move, "merge_look", armed)
    before = state(two)

    with pytest.raises(MemidxError) as raised:
        share(config, sleep=lambda _: None)

    assert raised.value.message.startswith(f"{THEIRS} appeared since share looked")
    assert "nothing was merged, pulled or pushed" in raised.value.message
    assert (folder / "dropped").exists()
    assert (two.root / THEIRS).read_text() == "the person's ignored draft\n"
    monkeypatch.undo()
    after = state(two)
    assert after == {**before, THEIRS: after[THEIRS], "status": f"{before['status']}!! {THEIRS}\n"}
    assert two.git("ls-remote", "origin", "refs/heads/main") == remote


# at share's read-tree (the branch moved, the index not yet), the person's `git commit`; the
# copy's read-tree before the move refused, so that git's follows under the lock (a merge of
# plain files is written by memidx in that instant, no git there: test_share_merge_rename_only)
COMMITTING = """#!/bin/sh
case " $* " in *" read-tree "*" -u "*) ;; *" read-tree "*) exit 1 ;; esac
if [ "$1" = read-tree ] && [ ! -e {marker} ]; then
    : > {marker}
    env -u GIT_INDEX_FILE {git} -c user.name=P -c user.email=p@example.invalid \\
        commit -q -m "the person's note" > {said} 2>&1
fi
exec {git} "$@"
"""


def test_a_commit_when_the_branch_moved_and_the_index_not_yet_reverts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """share moved the branch to its merge, then brought the index to it (git read-tree) in
    the same child process: a person's `git commit` in between committed the index as it
    was, without the other clone's notes, on top of the merge, and share pushed that commit,
    which deleted them from the remote. Now git's index is locked from before the move until
    it holds the merge: the person's commit is refused (git says index.lock exists) or lands
    before the merge, never a tree without the other clone's notes on top of it."""
    two = behind(tmp_path, diverged=True)
    two.note("mine.md", "Mine", "the person's own note, staged")
    two.git("add", "notes/mine.md")
    git = shutil.which("git")
    assert git is not None
    folder = tmp_path / "stand-in"
    folder.mkdir()
    script = folder / "git"
    said = tmp_path / "commit.out"
    script.write_text(COMMITTING.format(marker=folder / "committed", git=git, said=said))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder), prepend=os.pathsep)

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed
    monkeypatch.undo()

    assert (folder / "committed").exists()  # the person's commit ran in the window
    for ref in ("HEAD", "origin/main"):
        tree = two.git("ls-tree", "-r", "--name-only", ref)
        assert THEIRS in tree, (ref, said.read_text())
    assert THEIRS in two.git("ls-files")
    assert two.git("status", "--porcelain=v1", "--", THEIRS) == ""
    assert "index.lock': File exists" in said.read_text()  # refused, as during git merge
    assert two.git("status", "--porcelain=v1", "--", "notes/mine.md") == "A  notes/mine.md\n"
    assert not (two.root / ".git" / "index.lock").exists()
    assert not (two.root / ".git" / "memidx-follow-index").exists()


def test_a_copy_s_lock_a_killed_move_left_stops_no_later_share(tmp_path: Path) -> None:
    """share's merge follows on a copy of the index (.git/memidx-follow-index) while memidx
    holds index.lock: a shell killed mid-way left the copy's lock, and every later share's
    read-tree failed on it (git: Unable to create '.../memidx-follow-index.lock'), was read as
    another git holding the index and tried again until share gave up."""
    two = behind(tmp_path, diverged=True)
    (two.root / ".git" / "memidx-follow-index.lock").write_text("a killed shell's\n")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert THEIRS in two.git("ls-files")
    assert two.git("status", "--porcelain=v1", "--", "notes") == ""


# the person's editor for their `git pull`'s merge message: open until the go file comes
EDITING = """#!/bin/sh
: > {opened}
for _ in $(seq 600); do [ -e {go} ] && exit 0; sleep 0.05; done
exit 1
"""


def test_a_file_the_person_s_pull_writes_after_the_look_is_waited_for_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's `git pull` of the same upstream, under way (its merge message in their
    editor), wrote the other clone's note where share's merge writes after share looked:
    share refused, "appeared since share looked ... commit, move or delete it", of a file
    their pull was merging (tests/benchmark/chaos.py, seed 1). Now it waits for that git, and
    looks again."""
    two = behind(tmp_path, diverged=True)
    opened, go, editor = tmp_path / "opened", tmp_path / "go", tmp_path / "editor"
    editor.write_text(EDITING.format(opened=opened, go=go))
    editor.chmod(0o755)
    looked = share_move.merge_look
    pulls: list[subprocess.Popen[str]] = []

    def pull_meanwhile(config: Config, branch: str, head: str | None = None) -> Merge | None:
        found = looked(config, branch, head)
        if not pulls:  # the person's pull, after share's fetch and look, in their editor
            argv = ["git", *GIT_IDENTITY, "-c", f"core.editor={editor}", "merge", "--edit"]
            out = subprocess.PIPE
            pulls.append(
                subprocess.Popen(
                    [*argv, "origin/main"], cwd=two.root, env=clean_env(), text=True, stdout=out
                )
            )
            for _ in range(400):  # bounded: 20 s
                if opened.exists() or pulls[0].poll() is not None:
                    break
                time.sleep(0.05)
            assert (two.root / THEIRS).is_file()  # written by the pull, which is still running
            threading.Timer(1.0, go.touch).start()  # the person saves the message a moment later
        return found

    monkeypatch.setattr(share_move, "merge_look", pull_meanwhile)
    try:
        shared = share(load_config(two.root, env={}), sleep=lambda _: time.sleep(0.05))
    finally:
        go.touch()
        for pull in pulls:
            pull.wait(timeout=30)

    assert pulls and pulls[0].returncode == 0
    assert shared.pushed
    for ref in ("HEAD", "origin/main"):
        assert THEIRS in two.git("ls-tree", "-r", "--name-only", ref)
    assert two.git("status", "--porcelain=v1", "--", "notes") == ""
