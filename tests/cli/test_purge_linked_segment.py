"""`memidx haystack purge` never writes through a link at a segment's path (or a writer's
folder that is one), and says so: it skipped such a segment without a word and exited 0, the
forgotten bytes still in the file the link names."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from memidx.haystack.blanking import blanked, linked_may_hold
from memidx.haystack.frames import FORGET, frame, new_record
from tests.helpers import NotesRepo


def test_purge_names_a_linked_segment_it_leaves_and_exits_1(tmp_path: Path) -> None:
    memory = NotesRepo(tmp_path / "memory", init=False)  # outside git: no git run, in-process
    gone = new_record("turn", "forget the zebra")
    tombstone = replace(new_record(FORGET, f"forgets {gone.id}"), forgets=gone.id)
    writer = memory.root / "notes" / "haystack" / "w"
    writer.mkdir(parents=True)
    (writer / "2026-01-01.000.krd").write_bytes(frame(tombstone))
    theirs = tmp_path / "theirs.krd"
    theirs.write_bytes(frame(gone))
    (writer / "2026-01-02.000.krd").symlink_to(theirs)
    assert memory.memidx("ingest").code == 0

    run = memory.memidx("haystack", "purge")
    as_json = memory.memidx("haystack", "purge", "--json")

    ref = "notes/haystack/w/2026-01-02.000.krd"
    assert run.code == 1 and run.out == "blanked 0 forgotten records in 0 segments\n"
    assert run.err == (
        f"memidx: warning: {ref} is a link, or in a folder that is one: purge never writes "
        "through a link, so the file it names keeps any forgotten bytes (put that file in the "
        "link's place, then run memidx haystack purge again)\n"
    )
    assert as_json.code == 1 and as_json.json()["linked"] == [ref]
    assert theirs.read_bytes() == frame(gone)


def test_a_linked_segment_that_holds_no_forgotten_record_fails_no_purge(tmp_path: Path) -> None:
    """Any linked segment made every purge exit 1, though the file it names (or none, for a
    dangling link) held nothing forgotten: such a link is read through, never written, and a
    purge that has nothing to blank there succeeds in silence."""
    memory = NotesRepo(tmp_path / "memory", init=False)
    gone = new_record("turn", "forget the zebra")
    tombstone = replace(new_record(FORGET, f"forgets {gone.id}"), forgets=gone.id)
    writer = memory.root / "notes" / "haystack" / "w"
    writer.mkdir(parents=True)
    (writer / "2026-01-01.000.krd").write_bytes(frame(gone) + frame(tombstone))
    theirs = tmp_path / "theirs.krd"
    kept = frame(new_record("turn", "keep the okapi"))
    theirs.write_bytes(kept)
    (writer / "2026-01-02.000.krd").symlink_to(theirs)
    (writer / "2026-01-03.000.krd").symlink_to(tmp_path / "nothing-here.krd")
    assert memory.memidx("ingest").code == 0

    run = memory.memidx("haystack", "purge")

    assert (run.code, run.err) == (0, "")
    assert run.out == "blanked 1 forgotten record in 1 segment\n"
    assert theirs.read_bytes() == kept


def test_a_link_loop_or_a_blanked_record_through_a_link_fails_no_purge(tmp_path: Path) -> None:
    """A segment that was a link loop made purge end in a traceback (Path.resolve raises
    RuntimeError on Python 3.11), and a link to a file whose forgotten record was blanked
    already (by the clone whose segment it is) failed every purge, though that file keeps no
    forgotten byte: a link loop names no file, a blanked record is no forgotten one."""
    memory = NotesRepo(tmp_path / "memory", init=False)
    gone = new_record("turn", "forget the zebra")
    tombstone = replace(new_record(FORGET, f"forgets {gone.id}"), forgets=gone.id)
    writer = memory.root / "notes" / "haystack" / "w"
    writer.mkdir(parents=True)
    (writer / "2026-01-01.000.krd").write_bytes(frame(tombstone))
    theirs = tmp_path / "theirs.krd"
    purged, _ = blanked(frame(gone), {gone.id})
    theirs.write_bytes(purged)
    (writer / "2026-01-02.000.krd").symlink_to(theirs)
    (writer / "2026-01-03.000.krd").symlink_to(writer / "2026-01-04.000.krd")
    (writer / "2026-01-04.000.krd").symlink_to(writer / "2026-01-03.000.krd")
    assert memory.memidx("ingest").code == 0

    run = memory.memidx("haystack", "purge")

    assert (run.code, run.err) == (0, "")
    assert run.out == "blanked 0 forgotten records in 0 segments\n"
    assert theirs.read_bytes() == purged


def test_a_file_past_a_segments_size_through_a_link_is_never_read(tmp_path: Path) -> None:
    """A link to a file of gigabytes (no segment memidx wrote) was read whole into memory to
    look for a forgotten record in it: it is named, as a file it cannot read, and left unread."""
    gone = new_record("turn", "forget the zebra")
    theirs = tmp_path / "theirs.krd"
    theirs.write_bytes(frame(new_record("turn", "keep the okapi")))
    link = tmp_path / "2026-01-01.000.krd"
    link.symlink_to(theirs)
    size = theirs.stat().st_size

    assert linked_may_hold(link, {gone.id}, size) is False
    assert linked_may_hold(link, {gone.id}, size - 1) is True


def test_a_link_to_a_segment_this_purge_blanks_fails_no_purge(tmp_path: Path) -> None:
    """A link to another segment of the work tree was named as keeping the forgotten bytes
    (exit 1) in the purge that blanked that very segment: only the next purge exited 0."""
    memory = NotesRepo(tmp_path / "memory", init=False)
    gone = new_record("turn", "forget the zebra")
    tombstone = replace(new_record(FORGET, f"forgets {gone.id}"), forgets=gone.id)
    writer = memory.root / "notes" / "haystack" / "w"
    writer.mkdir(parents=True)
    (writer / "2026-01-01.000.krd").write_bytes(frame(tombstone))
    (writer / "2026-01-03.000.krd").write_bytes(frame(gone))
    (writer / "2026-01-02.000.krd").symlink_to(writer / "2026-01-03.000.krd")
    assert memory.memidx("ingest").code == 0

    run = memory.memidx("haystack", "purge")

    assert (run.code, run.err) == (0, "")
    assert run.out == "blanked 1 forgotten record in 1 segment\n"


def test_a_folder_a_fifo_or_a_device_through_a_link_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No segment: none holds a record, so none fails a purge, and none is opened (a device
    may act when opened, a folder raised and was named as a file that cannot be read)."""
    from memidx import drafts

    gone = new_record("turn", "forget the zebra")
    (tmp_path / "folder").mkdir()
    links = {"folder": tmp_path / "folder", "device": Path(os.devnull)}
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        links["fifo"] = tmp_path / "fifo"
    opened: list[Path] = []
    monkeypatch.setattr(drafts, "read_whole", opened.append)

    for name, target in links.items():
        (tmp_path / f"{name}.krd").symlink_to(target)

    found = {n: linked_may_hold(tmp_path / f"{n}.krd", {gone.id}, 1 << 30) for n in links}
    assert found == dict.fromkeys(links, False)
    assert opened == []
