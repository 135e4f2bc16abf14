"""memidx.git.refs.reach_state: the digest a kept walk answer is tied to changes with every
change of what `git log --all --reflog` and an autostash reach; memidx.haystack.walk_memo keeps
an answer for that state only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import memidx.git.refs as refs_module
from memidx.git.refs import reach_state
from memidx.haystack.walk_memo import MEMO, WalkMemo
from tests.fifos import at_once
from tests.helpers import NotesRepo


def test_each_change_of_refs_reflogs_or_autostash_changes_the_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # each state is read at once
    repo = NotesRepo(tmp_path / "clone")
    repo.write("notes/a.md", "a\n")
    repo.commit("first")
    other = tmp_path / "other"  # a second work tree: its HEAD and reflog are its own
    repo.git("branch", "side")
    repo.git("tag", "v1")
    steps = [
        ("update-ref", "refs/custom/x", "HEAD"),  # a ref with no reflog
        ("pack-refs", "--all"),
        ("tag", "-d", "v1"),  # a packed ref gone
        ("branch", "-D", "side"),
        ("reflog", "expire", "--expire=now", "--all"),
        ("commit", "-q", "--allow-empty", "-m", "second"),
        ("worktree", "add", "-q", "--detach", str(other), "HEAD~1"),
        ("-C", str(other), "commit", "-q", "--allow-empty", "-m", "in the other work tree"),
    ]
    states = [reach_state(repo.root)]
    for step in steps:
        repo.git(*step)
        states.append(reach_state(repo.root))
    repo.git("worktree", "remove", str(other))  # its commit unreachable: as before the add
    assert reach_state(repo.root) == states[-3]
    git_dir = repo.root / ".git"
    (git_dir / "MERGE_AUTOSTASH").write_text("0" * 40 + "\n")  # a merge under way
    states.append(reach_state(repo.root))
    (git_dir / "shallow").write_text(repo.git("rev-parse", "HEAD"))  # a shallow fetch
    states.append(reach_state(repo.root))

    assert None not in states and len(set(states)) == len(states)
    assert reach_state(repo.root) == states[-1]  # nothing changed: the same state


def test_a_state_read_within_seconds_of_a_change_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system that keeps times to the second (ext4 made with 128-byte inodes, HFS+;
    FAT: to two) gave a tag moved twice within one second the identity, size and times it had
    before the first move (ext4 hands a freed inode out again): the state read between them
    came back, and with it a yes kept for a commit no ref named any longer. A state read so
    soon after a change is none: nothing is kept for it."""
    repo = NotesRepo(tmp_path)
    repo.write("notes/a.md", "a\n")
    repo.commit("first")
    repo.git("tag", "-f", "t", "HEAD")

    assert reach_state(tmp_path) is None
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # the change seconds ago
    assert reach_state(tmp_path) is not None


def test_a_kept_yes_holds_only_at_the_state_it_was_found_in(tmp_path: Path) -> None:
    WalkMemo(tmp_path, "state-1").learn("q")

    assert WalkMemo(tmp_path, "state-1").knows("q")
    assert not WalkMemo(tmp_path, "state-2").knows("q")
    assert not WalkMemo(tmp_path, None).knows("q")  # refs unreadable: nothing is kept


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_the_kept_answers_reads_as_none(tmp_path: Path) -> None:
    assert at_once(tmp_path / MEMO, lambda: WalkMemo(tmp_path, "s").knows("q")) == [False]


def test_a_folder_with_no_repository_has_no_state(tmp_path: Path) -> None:
    assert reach_state(tmp_path) is None


@pytest.mark.parametrize(
    ("place", "data"),
    [
        (".git", b"gitdir: \xff\xfe\n"),  # a gitfile that is not UTF-8
        (".git", b"gitdir: wt\x00x\n"),  # a gitfile naming a path with a NUL in it
        (".git/HEAD", b"ref: refs/heads/\xff\n"),  # a HEAD that is not UTF-8
    ],
)
def test_git_files_that_do_not_say_it_plainly_read_as_no_state(
    tmp_path: Path, place: str, data: bytes
) -> None:
    """A `.git` git would refuse reads as no state and no HEAD (callers then ask git, or stay
    silent), never a ValueError out of a sync, a hook or a search."""
    if place != ".git":
        (tmp_path / ".git" / "refs").mkdir(parents=True)
    (tmp_path / place).write_bytes(data)

    assert refs_module.read_head(tmp_path) is None
    assert refs_module.unborn_branch(tmp_path) is None
    if place == ".git":  # no git folder to read at all
        assert refs_module.common_dir(tmp_path) is None and reach_state(tmp_path) is None
