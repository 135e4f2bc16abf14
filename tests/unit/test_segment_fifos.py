"""The haystack's segments and their copies are read and appended to as they are: a FIFO at a
segment's path was read in place (`read_bytes`) by every filing (an agent's capture hook), by
every sync (a git hook's) and by the purge, each waiting on it for ever; a link there was read
through, and a file it named, shorter than the segment the writer remembered, was cut to
nothing as a torn tail. Each now reads such a path as no segment, at once."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.drafts import open_to_append, read_whole
from memidx.haystack import damage, purge_torn
from memidx.haystack.forgotten import tombstones_on_disk
from memidx.haystack.frames import NOT_A_FILE, Damage, Scan, frame, new_record, scan_file
from memidx.haystack.indexing import sync_records
from memidx.haystack.kept import blank_copies, copy_of, keep_frame, restore_segments
from memidx.haystack.record_drift import record_drift
from memidx.haystack.segments import segments_changed
from memidx.haystack.writer import Writer
from memidx.index.record_rows import RecordStore
from memidx.index.store import Store, connect_memory
from tests.fifos import at_once

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
THEIRS = b"not memidx's\n"
NOT_READ = Scan(damaged=[Damage(0, 0, NOT_A_FILE)])  # said by sync and status: no records


def _writer(tmp_path: Path) -> Writer:
    return Writer(
        tmp_path / "notes" / "w", tmp_path / "state" / "lock", 1 << 20, fsync=False,
        keep=tmp_path / "state" / "kept" / "w",
    )  # fmt: skip


def _raised(call: Callable[[], object]) -> bool:
    try:
        call()
    except OSError:
        return True
    return False


def test_a_fifo_at_the_segment_written_last_starts_a_new_one_at_once(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "the first turn"))

    (filed,) = at_once(segment, lambda: writer.append(new_record("turn", "the next turn")))

    assert filed[0] != segment and filed[1] == 0
    assert [r.record.text for r in scan_file(filed[0]).records] == ["the next turn"]


def test_a_link_at_the_segment_written_last_is_neither_read_nor_cut(tmp_path: Path) -> None:
    """Read through the link, a file shorter than the segment remembered was taken for the
    start of a cut append: its bytes went aside and the file was truncated to nothing."""
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "the first turn"))
    theirs = tmp_path / "theirs.txt"
    theirs.write_bytes(THEIRS)
    segment.unlink()
    segment.symlink_to(theirs)

    filed, _, _ = writer.append(new_record("turn", "the next turn"))

    assert filed != segment and theirs.read_bytes() == THEIRS
    assert not writer.torn.exists()


def test_a_segment_is_never_appended_to_through_a_link(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.txt"
    theirs.write_bytes(THEIRS)
    (tmp_path / "a.krd").symlink_to(theirs)

    assert _raised(lambda: open_to_append(tmp_path / "a.krd").close())
    assert theirs.read_bytes() == THEIRS


def test_a_sync_reads_a_fifo_or_a_link_at_a_segment_s_path_as_no_records(
    tmp_path: Path,
) -> None:
    """Every git hook's sync scans each changed segment, and reads the tombstones on disk."""
    folder = tmp_path / "haystack"
    segment = folder / "w" / "2026-01-01.000.krd"

    assert at_once(segment, lambda: scan_file(segment)) == [NOT_READ]
    assert at_once(segment, lambda: tombstones_on_disk(folder)) == [set()]
    segment.unlink()
    theirs = tmp_path / "theirs.krd"
    theirs.write_bytes(frame(new_record("turn", "a turn of another file")))
    segment.symlink_to(theirs)
    assert scan_file(segment) == NOT_READ
    assert read_whole(theirs) == theirs.read_bytes()
    segment.unlink()
    assert scan_file(segment) == Scan()  # gone: no damage


def test_records_a_link_in_place_of_their_segment_takes_from_the_index_are_said(
    tmp_path: Path,
) -> None:
    """A segment moved away and linked back (or any link there) is read as no records: the
    index let go of every record it had, and neither the sync nor `memidx status` said a word,
    the records silently unsearchable."""
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)
    segment = config.root / "notes" / "haystack" / "w" / "2026-01-01.000.krd"
    segment.parent.mkdir(parents=True)
    segment.write_bytes(frame(new_record("turn", "a turn")))
    store = Store(connect_memory())
    sync_records(config, store, full=True)
    moved = tmp_path / "archive.krd"
    segment.rename(moved)
    segment.symlink_to(moved)

    report = sync_records(config, store, full=True)  # what `memidx ingest` runs

    said = f"notes/haystack/w/2026-01-01.000.krd: {NOT_A_FILE}"
    assert report.deleted == 1 and report.warnings() == [f"warning: {said}"]
    assert damage.recorded(store) == ({}, [said])  # what `memidx status` shows
    assert record_drift(config, store, deep=True).damaged == (said,)


def test_a_fifo_in_place_of_a_kept_copy_or_its_segment_is_not_waited_on(tmp_path: Path) -> None:
    """A sync writes back a segment git deleted from its copy; a filing makes a copy anew from
    its segment; a purge blanks the copies: each read a FIFO in place."""
    writer = _writer(tmp_path)
    segment, _, _ = writer.append(new_record("turn", "a turn"))
    kept = writer.keep or Path()
    copy = copy_of(kept, segment.name)
    segment.unlink()  # git clean: the copy is written back, unless it is no file

    assert at_once(copy, lambda: restore_segments(kept, writer.folder, tuple, False)) == [[]]
    assert at_once(copy, lambda: blank_copies(kept, {"an id"}, False)) == [0]
    fresh = tmp_path / "copy.krd.copy"
    made = lambda: _raised(lambda: keep_frame(fresh, segment, 3, b"x", False))  # noqa: E731
    assert at_once(segment, made) == [True]


def test_a_purge_reads_a_fifo_at_a_segment_or_a_torn_file_as_nothing(tmp_path: Path) -> None:
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    segment = config.root / "notes" / "haystack" / "w" / "2026-01-01.000.krd"
    torn = config.state_dir / "torn" / "2026-01-01.000.krd.torn"

    assert at_once(segment, lambda: purge_torn.forgotten_records([config], {"x"})) == [[]]
    assert at_once(torn, lambda: purge_torn.holds_torn(config, {"x"})) == [False]
    assert at_once(torn, lambda: purge_torn.blank_torn_files(config, {"x"})) == [0]


def test_a_link_at_a_segment_s_path_is_said_by_every_sync_and_a_dangling_one_raises_none(
    tmp_path: Path,
) -> None:
    """Segments were compared by what a link names (`stat`): one to the segment moved away,
    of the same size and time, was never read by a git hook's sync, so never said; a dangling
    one (git checks out a link a commit holds) raised out of every sync and `memidx status`."""
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)
    segment = config.root / "notes" / "haystack" / "w" / "2026-01-01.000.krd"
    segment.parent.mkdir(parents=True)
    segment.write_bytes(frame(new_record("turn", "a turn")))
    store = Store(connect_memory())
    sync_records(config, store)
    moved = tmp_path / "archive.krd"
    segment.rename(moved)
    segment.symlink_to(moved)
    said = f"notes/haystack/w/2026-01-01.000.krd: {NOT_A_FILE}"

    assert sync_records(config, store).warnings() == [f"warning: {said}"]  # a hook's sync
    moved.unlink()  # dangling now
    sync_records(config, store, full=True)
    assert damage.recorded(store) == ({}, [said])  # what `memidx status` shows
    assert record_drift(config, store, deep=False).changed_segments == ()
    indexed = RecordStore(store.conn).segments()  # what a post-commit hook asks first
    assert not segments_changed(config.root, segment.parent.parent, indexed)
    segment.unlink()
    assert sync_records(config, store).warnings() == [] and damage.recorded(store) == ({}, [])
