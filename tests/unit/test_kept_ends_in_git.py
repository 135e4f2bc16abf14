"""`memidx sync` against real git (no hooks): a segment's end is written back from the copy
only when no commit git still has holds it, one only a reflog names too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import memidx.git.refs as refs_module
import memidx.haystack.clone_writer as clone_writer_module
import memidx.haystack.kept as kept_module
import memidx.haystack.writer as writer_module
from memidx.config import Config
from memidx.git.repo import GitRepo
from memidx.haystack import head_copy
from memidx.haystack.clone_writer import clone_writer, restore_own
from memidx.haystack.filing import file
from memidx.haystack.frames import Record, new_record, scan_bytes
from memidx.haystack.indexing import Filed
from memidx.haystack.kept import copy_of
from memidx.haystack.log_only import file_in_log
from memidx.haystack.writer import Writer
from memidx.index.ownership import keep_out_of_git
from tests.helpers import NotesRepo


def _memory(tmp_path: Path, *, first: bool = False) -> tuple[NotesRepo, Config]:
    """A clone in `tmp_path` (with notes/a.md committed when `first`) whose `.memidx/` git
    ignores, and its config."""
    repo = NotesRepo(tmp_path)
    if first:
        repo.write("notes/a.md", "a note\n")
        repo.commit("first")
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    return repo, config


def _part_committed(repo: NotesRepo, writer: Writer) -> tuple[Path, bytes, bytes]:
    """A turn filed, `git add -A`, a turn filed, `git commit`: the segment, of which the commit
    holds the part (its bytes) and the work tree the whole (its bytes)."""
    segment, _, _ = writer.append(new_record("turn", "capybara turn before git add"))
    part = segment.read_bytes()
    repo.git("add", "-A")
    writer.append(new_record("turn", "dromedary turn between add and commit"))
    whole = segment.read_bytes()
    repo.git("commit", "-q", "-m", "the part")
    return segment, part, whole


def test_an_end_only_a_reflog_s_commit_holds_is_left_to_git(tmp_path: Path) -> None:
    """A turn filed between `git add -A` and `git commit`, committed whole next, then `git
    reset --hard HEAD~1` back to the commit of the part: git keeps the whole in the reflog
    (`git reset --hard HEAD@{1}` brings it back, and would stop on a changed file), so sync
    writes nothing into the file."""
    repo, config = _memory(tmp_path)
    writer = clone_writer(config)
    segment, part, _ = _part_committed(repo, writer)
    repo.commit("the whole")
    repo.git("reset", "-q", "--hard", "HEAD~1")
    assert segment.read_bytes() == part

    assert restore_own(config) == []
    assert segment.read_bytes() == part


def test_a_segment_only_a_reflog_s_commit_holds_is_left_to_git(tmp_path: Path) -> None:
    """A segment committed, then `git reset --hard HEAD~1` back to before it: git deleted it
    and keeps it in the reflog (`git reset --hard HEAD@{1}` brings it back, and would stop on
    an untracked file in its way), so sync writes no file in its place."""
    repo, config = _memory(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit("before the segment")
    segment, _, _ = clone_writer(config).append(new_record("turn", "capybara turn committed"))
    repo.commit("the segment")
    repo.git("reset", "-q", "--hard", "HEAD~1")
    assert not segment.exists()

    assert restore_own(config) == []
    assert not segment.exists()


def test_an_end_a_stash_holds_is_walked_for_once_until_a_ref_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every sync asks whether a commit holds a cut end, and the walk of the whole history
    costs ~0.1 ms a commit: its yes is kept until a ref, reflog or autostash changes; then
    the stash dropped, no commit holds the end and sync writes it back."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo, config = _memory(tmp_path)
    writer = clone_writer(config)
    segment, _, whole = _part_committed(repo, writer)
    repo.git("stash", "-q")  # the stash holds the whole, the file is HEAD's part
    walks: list[str] = []
    walk = clone_writer_module._walk_holds  # pyright: ignore[reportPrivateUsage]

    def counted(repo: GitRepo, ref: str, data: bytes) -> bool:
        walks.append(ref)
        return walk(repo, ref, data)

    monkeypatch.setattr(clone_writer_module, "_walk_holds", counted)

    assert restore_own(config) == [] and restore_own(config) == []
    assert len(walks) == 1 and segment.read_bytes() != whole
    repo.git("stash", "drop", "-q")
    assert restore_own(config) == [segment]
    assert len(walks) == 2 and segment.read_bytes() == whole


def test_a_copy_left_partly_committed_goes_once_a_plain_commit_holds_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer moves on from a segment a commit holds a part of, keeping its copy (the
    rest is in the work tree alone); `git commit` of the rest is seen by the next sync, and
    git is asked about HEAD again only once a ref changed."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo, config = _memory(tmp_path)
    writer = clone_writer(config)
    segment, _, _ = _part_committed(repo, writer)
    later, _, _ = writer.append(new_record("turn", "the next turn starts a new segment"))
    copy = copy_of(writer.keep or Path(), segment.name)
    assert later != segment and copy.exists()

    asked: list[str] = []
    size = head_copy.tree_size

    def counted(config: Config, commit: str, ref: str) -> int | None:
        asked.append(ref)
        return size(config, commit, ref)

    monkeypatch.setattr(head_copy, "tree_size", counted)

    assert restore_own(config) == [] and copy.exists()  # the rest is in no commit yet
    # the filing after the commit asked git at this HEAD: its answer is kept with the commit
    assert restore_own(config) == [] and copy.exists() and asked == []
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the rest")
    assert restore_own(config) == [] and not copy.exists() and len(asked) == 1
    assert copy_of(writer.keep or Path(), later.name).exists()  # the next filing's to drop


def test_a_segment_a_stash_took_is_walked_for_once_until_a_ref_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git stash -u` takes the open segment: every sync asks whether a commit names it, a
    walk of the whole history, until a ref changes; the stash dropped, sync writes it back."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo, config = _memory(tmp_path, first=True)
    segment, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    data = segment.read_bytes()
    repo.git("stash", "-q", "-u")
    walks: list[Path] = []
    walk = clone_writer_module._committed  # pyright: ignore[reportPrivateUsage]

    def counted(config: Config, folder: Path) -> list[str]:
        walks.append(folder)
        return walk(config, folder)

    monkeypatch.setattr(clone_writer_module, "_committed", counted)

    assert restore_own(config) == [] and restore_own(config) == []
    assert len(walks) == 1 and not segment.exists()
    repo.git("stash", "drop", "-q")
    assert restore_own(config) == [segment]
    assert len(walks) == 2 and segment.read_bytes() == data


def test_an_end_no_commit_holds_is_written_back_each_time_git_cuts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a yes of a walk is kept: git cutting the end again, no ref changed, has it written
    back again (a kept no would leave it out until a ref changed)."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo, config = _memory(tmp_path)
    writer = clone_writer(config)
    segment, _, whole = _part_committed(repo, writer)
    for _ in range(2):
        repo.git("checkout", "--", "notes")  # the file as HEAD holds it
        assert restore_own(config) == [segment] and segment.read_bytes() == whole


def test_a_segment_no_commit_names_is_written_back_each_time_git_deletes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the names a walk found are kept: `git clean` deleting the segment again, no ref
    changed, has it written back again."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo, config = _memory(tmp_path, first=True)
    segment, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    data = segment.read_bytes()
    for _ in range(2):
        repo.git("clean", "-q", "-f", "-d", "notes")
        assert restore_own(config) == [segment] and segment.read_bytes() == data


def test_a_sync_with_a_gone_segment_and_a_left_copy_reads_the_refs_state_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state a walk's answer is tied to stats every ref and reflog: a sync that writes a
    gone segment back and looks at a copy the writer moved on from reads it once."""
    monkeypatch.setattr(refs_module, "RACY_NS", 0)  # a change seconds ago
    repo, config = _memory(tmp_path)
    writer = clone_writer(config)
    _part_committed(repo, writer)  # the writer moves on, the copy is left
    later, _, _ = writer.append(new_record("turn", "the next turn starts a new segment"))
    repo.git("clean", "-q", "-f", "-d", "notes")  # the new segment gone
    reads: list[Path] = []
    state = refs_module.reach_state

    def counted(root: Path) -> str | None:
        reads.append(root)
        return state(root)

    monkeypatch.setattr(refs_module, "reach_state", counted)

    assert restore_own(config) == [later] and later.exists()
    assert len(reads) == 1


class Crash(BaseException):
    """The process killed where it is."""


def test_a_frame_a_crash_kept_from_its_segment_is_never_written_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filing killed before its segment's write, a plain `git commit` of the segment, the
    agent's hook filing the turn again (into a new segment: HEAD holds the old one): sync
    writes nothing into the committed file, and the turn is in the log once."""
    repo, config = _memory(tmp_path)
    writer = clone_writer(config)
    segment, _, _ = writer.append(new_record("turn", "capybara turn filed whole"))
    committed = segment.read_bytes()

    def killed(path: Path, *, create: bool = True) -> None:
        raise Crash

    with monkeypatch.context() as patched:
        patched.setattr(writer_module, "open_to_append", killed)
        with pytest.raises(Crash):
            writer.append(new_record("turn", "dromedary turn the crash cut"))
    repo.commit("a plain git commit")
    later, _, _ = writer.append(new_record("turn", "dromedary turn the crash cut"))

    assert later != segment and restore_own(config) == []
    assert segment.read_bytes() == committed
    texts = [r.record.text for p in (segment, later) for r in scan_bytes(p.read_bytes()).records]
    assert texts.count("dromedary turn the crash cut") == 1


def _file_indexed(config: Config, record: Record, writer: Writer) -> Filed:
    return file(config, record)  # its own writer, as each hook's process has


@pytest.mark.parametrize("filing", [file_in_log, _file_indexed])
def test_a_record_a_crash_kept_from_the_copy_is_kept_once_a_retry_finds_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    filing: Callable[[Config, Record, Writer], Filed],
) -> None:
    """A filing killed between its segment's write and its copy's: the retry (in the log
    alone, or into the index) finds the record filed, so the copy gets it first, and git
    deleting the segment then has it back."""
    repo, config = _memory(tmp_path, first=True)
    writer = clone_writer(config)
    filing(config, new_record("turn", "capybara turn filed whole"), writer)

    def killed(*args: object) -> None:
        raise Crash

    with monkeypatch.context() as patched:
        patched.setattr(kept_module, "keep_frame", killed)
        with pytest.raises(Crash):
            filing(config, new_record("turn", "dromedary turn"), writer)
    assert filing(config, new_record("turn", "dromedary turn"), writer).duplicate
    segment = writer.last_segment() or Path()
    whole = segment.read_bytes()
    repo.git("clean", "-q", "-f", "-d", "notes")  # the segment gone

    assert restore_own(config) == [segment] and segment.read_bytes() == whole
