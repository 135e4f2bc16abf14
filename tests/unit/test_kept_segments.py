"""The copies of open segments under .memidx/kept/: what git deletes, sync writes back."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

import pytest

import memidx.haystack.kept as kept_module
from memidx.haystack.frames import frame, new_record, scan_bytes
from memidx.haystack.kept import copy_of, drop_copies, ends_cut, restore_ends, restore_segments
from memidx.haystack.writer import Writer


def _writer(tmp_path: Path) -> Writer:
    return Writer(
        tmp_path / "notes" / "w", tmp_path / "state" / "lock", 1 << 20, fsync=False,
        keep=tmp_path / "state" / "kept" / "w",
    )  # fmt: skip


def test_a_segment_git_deleted_comes_back_byte_for_byte(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "first turn about wapiti"))
    writer.append(new_record("turn", "second turn about gnu"))
    data = segment.read_bytes()
    segment.unlink()  # git reset --hard of a staged segment, or git clean

    assert restore_segments(writer.keep or Path(), writer.folder, tuple, False) == [segment]
    assert segment.read_bytes() == data


def test_a_file_at_the_segment_s_path_is_never_overwritten(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a turn"))
    segment.write_bytes(b"the person's own bytes")

    assert restore_segments(writer.keep or Path(), writer.folder, tuple, False) == []
    assert segment.read_bytes() == b"the person's own bytes"


def test_a_copy_lost_or_cut_is_made_anew_from_the_segment(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "before the copy was lost"))
    copy = copy_of(writer.keep or Path(), segment.name)
    copy.unlink()
    writer.append(new_record("turn", "after"))
    assert copy.read_bytes() == segment.read_bytes()
    copy.write_bytes(copy.read_bytes()[:-3])  # a crash cut the copy's last append
    writer.append(new_record("turn", "and one more"))

    assert copy.read_bytes() == segment.read_bytes()
    assert len(scan_bytes(copy.read_bytes()).records) == 3


def test_a_segment_a_commit_holds_is_left_to_git(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a committed turn"))
    segment.unlink()  # an older commit checked out: the next checkout brings it back

    assert (
        restore_segments(writer.keep or Path(), writer.folder, lambda: [segment.name], False) == []
    )
    assert not segment.exists()


def test_a_commit_of_the_segments_drops_their_copies(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a turn"))
    with writer.locked():
        writer.close()

    assert not (copy_of(writer.keep or Path(), segment.name)).exists()


def test_a_purge_blanks_the_forgotten_record_in_the_copy_too(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    secret = new_record("turn", "the secret is okapi")
    segment, _, _ = writer.append(secret)
    writer.append(new_record("turn", "an ordinary turn"))
    former = copy_of(tmp_path / "state" / "kept" / "old-id", segment.name)  # a former id's
    former.parent.mkdir()
    former.write_bytes(segment.read_bytes())
    with writer.locked():
        writer.blank_copies({secret.id})

    copy = copy_of(writer.keep or Path(), segment.name).read_bytes()
    assert b"okapi" not in copy and b"ordinary" in copy and len(copy) == segment.stat().st_size
    assert b"okapi" not in former.read_bytes()


def test_only_the_copy_s_whole_records_are_written_back(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a whole turn"))
    data = segment.read_bytes()
    copy = copy_of(writer.keep or Path(), segment.name)
    copy.write_bytes(copy.read_bytes() + b"KRD1\x00\x00")  # a crash cut the next copy append
    segment.unlink()

    assert restore_segments(writer.keep or Path(), writer.folder, tuple, False) == [segment]
    assert segment.read_bytes() == data


def _cut_to_first(tmp_path: Path) -> tuple[Writer, Path, bytes]:
    """A segment of two records cut back to its first (a commit held only that part, and
    `git reset --hard` put it back); the writer, the segment and its bytes before the cut."""
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "committed turn about wapiti"))
    first = segment.stat().st_size
    writer.append(new_record("turn", "turn filed between git add and git commit"))
    data = segment.read_bytes()
    segment.write_bytes(data[:first])
    return writer, segment, data


def _in_head(segment: Path) -> Callable[[str], int]:
    """HEAD holds the segment as it is on the disk now."""
    size = segment.stat().st_size
    return lambda name: size


def test_a_segment_cut_back_to_a_commit_s_part_gets_its_end_back(tmp_path: Path) -> None:
    writer, segment, data = _cut_to_first(tmp_path)
    cut = ends_cut(writer.keep or Path(), writer.folder)

    assert restore_ends(cut, _in_head(segment), lambda name, whole: False, False) == [segment]
    assert segment.read_bytes() == data
    assert ends_cut(writer.keep or Path(), writer.folder) == []


def test_a_segment_no_commit_holds_cut_at_a_record_s_end_is_left_as_a_crash_left_it(
    tmp_path: Path,
) -> None:
    """A crash between the copy's append and the segment's leaves the same shape: that
    record was never acknowledged, and the torn-tail rules, not the copy, say what remains."""
    writer, segment, data = _cut_to_first(tmp_path)
    cut = ends_cut(writer.keep or Path(), writer.folder)

    assert restore_ends(cut, lambda name: -1, lambda name, whole: False, False) == []
    assert segment.read_bytes() != data


def test_an_end_a_commit_or_stash_holds_is_left_to_git(tmp_path: Path) -> None:
    writer, segment, data = _cut_to_first(tmp_path)
    asked: list[tuple[str, bytes]] = []
    cut = ends_cut(writer.keep or Path(), writer.folder)

    def holds(name: str, whole: bytes) -> bool:
        asked.append((name, whole))
        return True

    assert restore_ends(cut, _in_head(segment), holds, False) == []
    assert asked == [(segment.name, data)] and segment.read_bytes() != data


def test_a_shorter_file_that_is_not_the_copy_s_start_is_never_appended_to(
    tmp_path: Path,
) -> None:
    writer, segment, _ = _cut_to_first(tmp_path)
    other = frame(new_record("turn", "x"))
    segment.write_bytes(other)  # the person's bytes, whole records too
    cut = ends_cut(writer.keep or Path(), writer.folder)

    assert restore_ends(cut, _in_head(segment), lambda name, whole: False, False) == []
    assert segment.read_bytes() == other


def test_a_copy_stays_while_head_holds_only_a_part_of_its_segment(tmp_path: Path) -> None:
    writer, segment, data = _cut_to_first(tmp_path)
    copy = copy_of(writer.keep or Path(), segment.name)

    drop_copies(writer.keep, lambda name: len(data) - 1)
    assert copy.exists()
    drop_copies(writer.keep, lambda name: len(data))
    assert not copy.exists()


def test_a_segment_git_deletes_while_its_end_is_written_back_is_not_made_anew(
    tmp_path: Path,
) -> None:
    """Git deletes the file after sync read it (a checkout, a reset): nothing is written, so
    no file holding the end alone, a segment without its head, appears."""
    writer, segment, _ = _cut_to_first(tmp_path)
    cut = ends_cut(writer.keep or Path(), writer.folder)

    def deleted_meanwhile(name: str, whole: bytes) -> bool:
        segment.unlink()
        return False

    assert restore_ends(cut, _in_head(segment), deleted_meanwhile, False) == []
    assert not segment.exists()


def test_a_segment_git_replaces_while_its_end_is_written_back_is_left_as_git_wrote_it(
    tmp_path: Path,
) -> None:
    writer, segment, _ = _cut_to_first(tmp_path)
    cut = ends_cut(writer.keep or Path(), writer.folder)
    other = frame(new_record("turn", "git wrote another version"))

    def replaced_meanwhile(name: str, whole: bytes) -> bool:
        segment.unlink()
        segment.write_bytes(other)
        return False

    assert restore_ends(cut, _in_head(segment), replaced_meanwhile, False) == []
    assert segment.read_bytes() == other


def test_a_cut_segment_ending_inside_a_record_is_never_appended_to(tmp_path: Path) -> None:
    """A file that ends in a torn tail (HEAD holds it so too) is the torn-tail rules' to
    handle: an end written after the torn bytes would be read as a part of that record."""
    writer, segment, data = _cut_to_first(tmp_path)
    torn = data[: segment.stat().st_size + 7]  # the second record's first bytes
    segment.write_bytes(torn)
    cut = ends_cut(writer.keep or Path(), writer.folder)

    assert restore_ends(cut, _in_head(segment), lambda name, whole: False, False) == []
    assert segment.read_bytes() == torn


def test_only_the_copy_s_whole_records_are_appended_to_a_cut_segment(tmp_path: Path) -> None:
    writer, segment, data = _cut_to_first(tmp_path)
    copy = copy_of(writer.keep or Path(), segment.name)
    copy.write_bytes(data + b"KRD1\x00\x00")  # a crash cut the next copy append
    cut = ends_cut(writer.keep or Path(), writer.folder)

    assert restore_ends(cut, _in_head(segment), lambda name, whole: False, False) == [segment]
    assert segment.read_bytes() == data


def test_a_copy_that_fails_takes_the_frame_off_the_segment_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy is written after the segment: one that fails (a full disk) leaves the segment
    as it was, the record not filed; the next filing keeps both in step."""
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a turn filed whole"))
    before = segment.read_bytes()

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(kept_module, "keep_frame", full)
        with pytest.raises(OSError, match="No space left"):
            writer.append(new_record("turn", "a turn the full disk refused"))
    assert segment.read_bytes() == before

    later, _, _ = writer.append(new_record("turn", "the next turn"))
    copy = copy_of(writer.keep or Path(), later.name)
    assert copy.read_bytes() == later.read_bytes()
    texts = [r.record.text for p in (segment, later) for r in scan_bytes(p.read_bytes()).records]
    assert "a turn the full disk refused" not in texts


def test_the_filing_after_a_failed_copy_appends_to_the_same_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy that failed gave the frame back and left the segment whole: the next filing
    appends to it (a failed copy used to start a new segment, one more file per disk hiccup),
    and the copy follows it."""
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a turn filed whole"))

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(kept_module, "keep_frame", full)
        with pytest.raises(OSError, match="No space left"):
            writer.append(new_record("turn", "a turn the full disk refused"))

    later, offset, _ = writer.append(new_record("turn", "the next turn"))
    assert later == segment and offset > 0
    assert sorted(p.name for p in segment.parent.iterdir()) == [segment.name]
    assert copy_of(writer.keep or Path(), segment.name).read_bytes() == segment.read_bytes()
    texts = [r.record.text for r in scan_bytes(segment.read_bytes()).records]
    assert texts == ["a turn filed whole", "the next turn"]


def test_a_copy_whose_sync_fails_keeps_no_frame_the_segment_gave_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy that took the frame and then failed (its fsync, the folder's): the segment gives
    the frame back, and so does the copy, else a sync writes the unfiled turn back once a
    commit holds the segment, and the retry's turn is in the log twice."""
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a turn filed whole"))
    real = kept_module.keep_frame

    def synced_badly(copy: Path, segment: Path, offset: int, data: bytes, durable: bool) -> None:
        real(copy, segment, offset, data, durable)
        raise OSError(errno.EIO, "Input/output error")

    with monkeypatch.context() as patched:
        patched.setattr(kept_module, "keep_frame", synced_badly)
        with pytest.raises(OSError, match="Input/output"):
            writer.append(new_record("turn", "a turn the disk refused"))
    assert copy_of(writer.keep or Path(), segment.name).read_bytes() == segment.read_bytes()


def test_a_failed_copy_takes_off_the_segment_nothing_appended_after_its_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The segment gives the frame back only when it is as the append left it: bytes another
    writer appended after it (no lock of this clone holds it) are never cut with it."""
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a turn filed whole"))
    later = frame(new_record("turn", "a turn another writer appended"))

    def appended_then_full(copy: Path, segment: Path, *args: object) -> None:
        with segment.open("ab") as out:
            out.write(later)
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(kept_module, "keep_frame", appended_then_full)
        with pytest.raises(OSError, match="No space left"):
            writer.append(new_record("turn", "a turn the full disk refused"))
    assert segment.read_bytes().endswith(later)
