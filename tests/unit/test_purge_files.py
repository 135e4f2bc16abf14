"""Which segment files a purge reads record by record: only those that name a forgotten id.
Purge looks through every segment of this work tree and, for the files check, of each other
work tree of the clone; a segment that names none is not parsed (nor blanked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.haystack import blanking
from memidx.haystack.frames import Scan, frame, new_record, scan_bytes
from memidx.haystack.purge import Purged
from memidx.haystack.purge import _work_tree as work_tree  # pyright: ignore[reportPrivateUsage]


def test_only_a_segment_that_names_a_forgotten_id_is_read_record_by_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keep, gone = new_record("turn", "keep the okapi"), new_record("turn", "forget the zebra")
    folder = tmp_path / "notes/haystack/writer"
    folder.mkdir(parents=True)
    (folder / "2026-01-01.000.krd").write_bytes(frame(keep) * 3)
    holding = folder / "2026-01-02.000.krd"
    holding.write_bytes(frame(keep) + frame(gone))
    scanned: list[int] = []

    def counting(data: bytes) -> Scan:
        scanned.append(len(data))
        return scan_bytes(data)

    monkeypatch.setattr(blanking, "scan_bytes", counting)
    config = Config(root=tmp_path, in_git=False)

    files = work_tree(config, {gone.id}, Purged(), False)

    assert list(files) == [holding] and files[holding][1] == 1
    assert scanned == [holding.stat().st_size]  # the other segment was never parsed


def test_a_linked_segment_is_named_and_never_blanked_through_the_link(tmp_path: Path) -> None:
    """A segment that is a link, or in a writer's folder that is one, was skipped without a
    word: the forgotten bytes in the file it names stayed, and the purge said it was done."""
    gone = new_record("turn", "forget the zebra")
    held = frame(gone)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "2026-01-01.000.krd").write_bytes(held)
    theirs = tmp_path / "theirs.krd"
    theirs.write_bytes(held)
    haystack = tmp_path / "notes/haystack"
    (haystack / "mine").mkdir(parents=True)
    (haystack / "mine/2026-01-01.000.krd").symlink_to(theirs)
    (haystack / "folder").symlink_to(elsewhere)
    config = Config(root=tmp_path, in_git=False)
    done = Purged()

    files = work_tree(config, {gone.id}, done, False)

    assert files == {}
    assert done.linked == [
        "notes/haystack/folder/2026-01-01.000.krd",
        "notes/haystack/mine/2026-01-01.000.krd",
    ]
    assert theirs.read_bytes() == held and (elsewhere / "2026-01-01.000.krd").read_bytes() == held
