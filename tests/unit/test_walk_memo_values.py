"""What git says of the commits the refs name, kept in `.memidx/haystack.walked` with the refs'
state (memidx.haystack.walk_memo): HEAD's size of a segment whose end stays cut, and the last
segment name a writer that lost its memory numbers after. Real git, no hooks."""

from __future__ import annotations

from pathlib import Path

import pytest

import memidx.git.refs as refs_module
import memidx.haystack.clone_writer as clone_writer_module
from memidx.config import Config
from memidx.haystack import head_copy
from memidx.haystack.clone_writer import clone_writer, restore_own
from memidx.haystack.frames import new_record
from memidx.haystack.walk_memo import WalkMemo
from memidx.index.ownership import keep_out_of_git
from tests.helpers import NotesRepo


def _config(root: Path) -> Config:
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    return config


def test_head_s_size_of_a_cut_segment_is_asked_once_until_a_ref_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While `git stash` holds a segment's end, every sync looked at the cut file and ran `git
    cat-file -s HEAD:<segment>` (~2-4 ms): the answer is kept until a ref changes, HEAD's
    included; the stash dropped, the end is written back."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo = NotesRepo(tmp_path)
    config = _config(tmp_path)
    writer = clone_writer(config)
    segment, _, _ = writer.append(new_record("turn", "capybara turn before git add"))
    repo.git("add", "-A")
    writer.append(new_record("turn", "dromedary turn between add and commit"))
    whole = segment.read_bytes()
    repo.git("commit", "-q", "-m", "the part")
    repo.git("stash", "-q")  # the stash holds the whole, the file is HEAD's part
    asked: list[str] = []
    size = head_copy.tree_size

    def counted(config: Config, commit: str, ref: str) -> int | None:
        asked.append(ref)
        return size(config, commit, ref)

    monkeypatch.setattr(head_copy, "tree_size", counted)

    for _ in range(3):
        assert restore_own(config) == [] and segment.read_bytes() != whole
    assert len(asked) == 1
    repo.git("stash", "drop", "-q")
    assert restore_own(config) == [segment] and segment.read_bytes() == whole
    assert len(asked) == 1  # HEAD did not move: the size kept with its commit holds


def test_a_writer_without_memory_walks_the_history_once_until_a_ref_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that lost its memory (`.memidx/haystack.lock.last`) numbers a new segment after
    every name a commit holds, a walk of the whole history: the last name it found is kept
    until a ref changes, and the numbering is the same."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo = NotesRepo(tmp_path)
    config = _config(tmp_path)
    first, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the segment")
    repo.git("rm", "-q", "-r", "notes/haystack")  # its file off the disk: only git names it
    repo.git("commit", "-q", "-m", "the haystack moved out")
    walks: list[Path] = []
    walk = clone_writer_module._committed  # pyright: ignore[reportPrivateUsage]

    def counted(config: Config, folder: Path) -> list[str]:
        walks.append(folder)
        return walk(config, folder)

    monkeypatch.setattr(clone_writer_module, "_committed", counted)
    made: list[str] = []
    for text in ("dromedary turn", "echidna turn"):
        (config.state_dir / "haystack.lock.last").unlink()  # the memory lost
        segment, _, _ = clone_writer(config).append(new_record("turn", text))
        made.append(segment.name)
        segment.unlink()  # the next one numbers after the history, not after this file
    assert made == [first.name.replace(".000.", ".001.")] * 2
    assert len(walks) == 1
    repo.git("commit", "-q", "--allow-empty", "-m", "a ref moved")
    (config.state_dir / "haystack.lock.last").unlink()
    clone_writer(config).append(new_record("turn", "fennec turn"))
    assert len(walks) == 2


def test_a_kept_value_is_read_back_only_at_its_state(tmp_path: Path) -> None:
    """Values and yes-answers share the memo's file; another state reads as an empty memo."""
    memo = WalkMemo(tmp_path, "state-1")
    memo.learn("yes-question")
    memo.keep("size-question", "-1")
    again = WalkMemo(tmp_path, "state-1")
    assert again.knows("yes-question") and again.recall("size-question") == "-1"
    assert again.recall("yes-question") is None and not again.knows("size-question")
    other = WalkMemo(tmp_path, "state-2")
    assert other.recall("size-question") is None and not other.knows("yes-question")
    assert WalkMemo(tmp_path, None).recall("size-question") is None


def test_a_long_lived_writer_walks_again_once_a_ref_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One writer, kept by its process (a `Haystack`), loses its memory twice: the second
    time a commit holds a later segment its first walk never saw. The last name kept for the
    refs' state of the first walk named the new segment after an older one: the name of a
    committed segment git had taken off the disk (a collision at the next checkout of it)."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo = NotesRepo(tmp_path)
    config = _config(tmp_path)
    writer = clone_writer(config)
    first, _, _ = writer.append(new_record("turn", "capybara turn"))
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the first segment")
    (config.state_dir / "haystack.lock.last").unlink()  # the memory lost
    second, _, _ = writer.append(new_record("turn", "dromedary turn"))
    assert second.name == first.name.replace(".000.", ".001.")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the second segment")
    repo.git("rm", "-q", "-r", "notes/haystack")  # off the disk: only git names them
    repo.git("commit", "-q", "-m", "the haystack moved out")
    (config.state_dir / "haystack.lock.last").unlink()  # lost again

    third, _, _ = writer.append(new_record("turn", "echidna turn"))

    assert third.name == first.name.replace(".000.", ".002."), third.name


def test_two_memos_of_one_state_keep_each_other_s_answers(tmp_path: Path) -> None:
    """A sync's memo and its writer's (or two processes') read the file, then each kept an
    answer: the second write was of its own answers alone, and the first one's was lost (the
    walk or `git cat-file` ran again at the next sync)."""
    first, second = WalkMemo(tmp_path, "state-1"), WalkMemo(tmp_path, "state-1")
    first.learn("yes-question")
    first.keep("size-question", "120")
    second.keep("name-question", "2026-12-05.001.krd")
    second.learn("other-yes")

    again = WalkMemo(tmp_path, "state-1")
    assert again.knows("yes-question") and again.knows("other-yes")
    assert again.recall("size-question") == "120"
    assert again.recall("name-question") == "2026-12-05.001.krd"
    WalkMemo(tmp_path, "state-2").learn("newer")  # another state's file replaces it whole
    assert not WalkMemo(tmp_path, "state-1").knows("yes-question")


def test_a_memo_cut_short_is_read_as_none(tmp_path: Path) -> None:
    """A memo cut inside its last line (a crash before the unsynced file reached the disk
    whole, a full disk) read back `size-question=12` for 1200: HEAD's size of a segment."""
    WalkMemo(tmp_path, "state-1").keep("size-question", "1200")
    memo = tmp_path / "haystack.walked"
    memo.write_bytes(memo.read_bytes()[:-3])  # "...=12": a value, but not git's

    again = WalkMemo(tmp_path, "state-1")

    assert again.recall("size-question") is None
    again.keep("size-question", "1200")  # written whole again
    assert WalkMemo(tmp_path, "state-1").recall("size-question") == "1200"


def test_head_s_size_git_could_not_tell_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HEAD's commit unreadable for a moment (its object off the disk): the size of the cut
    segment is not known, and was kept with the refs' state as such, so the stash dropped,
    the end was not written back until a ref changed."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo = NotesRepo(tmp_path)
    config = _config(tmp_path)
    writer = clone_writer(config)
    segment, _, _ = writer.append(new_record("turn", "capybara turn before git add"))
    repo.git("add", "-A")
    writer.append(new_record("turn", "dromedary turn between add and commit"))
    whole = segment.read_bytes()
    repo.git("commit", "-q", "-m", "the part")
    repo.git("stash", "-q")
    repo.git("stash", "drop", "-q")
    head = repo.git("rev-parse", "HEAD").strip()
    loose = tmp_path / ".git" / "objects" / head[:2] / head[2:]
    aside = tmp_path / "commit-object"
    loose.rename(aside)
    try:
        assert restore_own(config) == [] and segment.read_bytes() != whole
    finally:
        aside.rename(loose)
    assert restore_own(config) == [segment] and segment.read_bytes() == whole


def test_a_copy_head_holds_whole_is_dropped_once_git_reads_head_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HEAD's commit unreadable for a moment (its object off the disk) when a sync looked at a
    segment the writer moved on from: git's "cannot tell" was learned as "HEAD holds less",
    kept with the refs' state, so its copy stayed until a ref changed."""
    from memidx.haystack.identity import read_id
    from memidx.haystack.kept import copy_of, kept_folder

    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo = NotesRepo(tmp_path)
    config = _config(tmp_path)
    first, _, _ = clone_writer(config).append(new_record("turn", "capybara turn before git add"))
    repo.git("add", "-A")
    clone_writer(config).append(new_record("turn", "dromedary turn between add and commit"))
    repo.git("commit", "-q", "-m", "the part")
    later, _, _ = clone_writer(config).append(new_record("turn", "heron turn after the commit"))
    ident = read_id(config.state_dir)
    assert later != first and ident is not None
    copy = copy_of(kept_folder(config.state_dir, ident), first.name)
    assert copy.exists()  # HEAD holds a part of it
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the whole")
    head = repo.git("rev-parse", "HEAD").strip()
    loose = tmp_path / ".git" / "objects" / head[:2] / head[2:]
    aside = tmp_path / "commit-object"
    loose.rename(aside)
    try:
        assert restore_own(config) == [] and copy.exists()  # git cannot tell: kept
    finally:
        aside.rename(loose)
    assert restore_own(config) == [] and not copy.exists()
