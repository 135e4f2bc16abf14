"""The log format: framing, scanning, torn tails and rotation (pure and on a temporary disk)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memidx.errors import MemidxError
from memidx.haystack.frames import (
    HEADER,
    MAGIC,
    Damage,
    frame,
    iso_utc,
    new_record,
    parse,
    scan_bytes,
    scan_file,
    valid_end,
)
from memidx.haystack.writer import Writer


def test_a_frame_is_magic_length_and_utf8_json() -> None:
    record = new_record("turn", "User: héllo\n\nAssistant: hi", agent="claude", session="s1")
    data = frame(record)
    magic, length = HEADER.unpack_from(data)
    assert magic == MAGIC == b"KRD1"
    assert length == len(data) - 8
    payload = json.loads(data[8:].decode("utf-8"))
    assert set(payload) == {
        "id",
        "kind",
        "drawer",
        "ts",
        "tags",
        "text",
        "hash",
        "agent",
        "session",
    }
    assert parse(data[8:]) == record


def test_ids_are_unique_and_timestamps_utc() -> None:
    ids = {new_record("fact", "x").id for _ in range(500)}
    assert len(ids) == 500
    assert new_record("fact", "x").ts.endswith("Z")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-29T10:00:00Z", "2026-11-29T10:00:00Z"),
        ("2026-11-29T12:00:00+02:00", "2026-11-29T10:00:00Z"),
        ("2026-11-29 10:00", "2026-11-29T10:00:00Z"),
    ],
)
def test_timestamps_are_normalised_to_utc(text: str, expected: str) -> None:
    assert iso_utc(text) == expected


@pytest.mark.parametrize(("kind", "text"), [("note", "x"), ("turn", "   ")])
def test_bad_records_are_refused(kind: str, text: str) -> None:
    with pytest.raises(MemidxError):
        new_record(kind, text)


def test_scan_reads_every_complete_record_and_reports_a_torn_tail() -> None:
    frames = [frame(new_record("turn", f"turn number {i}")) for i in range(3)]
    whole = b"".join(frames)
    assert [r.record.text for r in scan_bytes(whole).records] == [
        f"turn number {i}" for i in range(3)
    ]
    torn = scan_bytes(whole[:-5])
    assert len(torn.records) == 2 and torn.end == len(frames[0]) + len(frames[1])
    assert torn.torn == len(frames[2]) - 5
    assert valid_end(whole[:-5]) == torn.end and valid_end(whole) == len(whole)


def test_a_damaged_frame_in_the_middle_is_skipped_not_the_rest() -> None:
    frames = [bytearray(frame(new_record("turn", f"turn number {i}"))) for i in range(3)]
    frames[1][12] = 0xFF  # inside the JSON of the second record
    scan = scan_bytes(b"".join(bytes(f) for f in frames))
    assert [r.record.text for r in scan.records] == ["turn number 0", "turn number 2"]
    assert scan.damaged == [Damage(len(frames[0]), len(frames[1]), "unreadable JSON")]


def test_appends_rotate_by_size_and_never_rewrite_earlier_bytes(tmp_path: Path) -> None:
    writer = Writer(tmp_path / "w", tmp_path / "lock", segment_bytes=600, fsync=False)
    placed = [writer.append(new_record("turn", f"turn {i} " + "x" * 100)) for i in range(10)]
    files = sorted({p for p, _, _ in placed})
    assert len(files) > 1
    assert all(f.stat().st_size <= 600 for f in files)
    first = files[0].read_bytes()
    writer.append(new_record("turn", "one more"))
    assert files[0].read_bytes() == first
    assert sum(len(scan_file(f).records) for f in (tmp_path / "w").glob("*.krd")) == 11
    assert not (tmp_path / ".gitattributes").exists()  # made when segments are committed


def test_a_segment_not_as_the_writer_left_it_is_never_appended_to(tmp_path: Path) -> None:
    writer = Writer(tmp_path / "w", tmp_path / "lock", segment_bytes=1 << 20, fsync=False)
    segment, _, _ = writer.append(new_record("turn", "first"))
    committed = segment.read_bytes()
    writer.append(new_record("turn", "second"))
    segment.write_bytes(committed)  # a checkout of the commit that had the first turn only

    placed, offset, _ = writer.append(new_record("turn", "third"))

    assert segment.read_bytes() == committed
    assert (placed.name, offset) == (segment.name.replace(".000.", ".001."), 0)
    segment.unlink()  # a checkout of a commit without the segment: its name stays taken
    placed.unlink()
    assert writer.append(new_record("turn", "fourth"))[0].name == segment.name.replace(
        ".000.", ".002."
    )


def test_without_its_memory_the_writer_never_writes_a_segment_git_has(tmp_path: Path) -> None:
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    folder = tmp_path / "w"
    folder.mkdir()
    older_copy = folder / f"{day}.000.krd"  # an older commit's copy of a longer segment
    older_copy.write_bytes(frame(new_record("turn", "committed")))
    before = older_copy.read_bytes()
    (tmp_path / "lock.last").write_text("garbage \u00b2\n")  # unreadable: no memory
    committed = [f"{day}.000.krd", f"{day}.001.krd"]  # names in git's history
    writer = Writer(
        tmp_path / "w", tmp_path / "lock", 1 << 20, fsync=False, history=lambda: committed
    )

    placed, offset, _ = writer.append(new_record("turn", "new"))

    assert (placed.name, offset) == (f"{day}.002.krd", 0)
    assert older_copy.read_bytes() == before


def test_a_clock_gone_back_never_names_a_segment_before_the_last(tmp_path: Path) -> None:
    writer = Writer(tmp_path / "w", tmp_path / "lock", 1 << 20, fsync=False)
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "2999-01-01.000.krd").write_bytes(b"")
    (tmp_path / "lock.last").write_text(
        "2999-01-01.000.krd 10\n"
    )  # the file is shorter: not as left

    placed, _, _ = writer.append(new_record("turn", "today, by a clock gone back"))

    assert placed.name == "2999-01-01.001.krd"


@pytest.mark.parametrize(
    ("text", "utc"),
    [
        ("2026-11-30T10:00:00+02:00", "2026-11-30T08:00:00Z"),
        ("2026-11-30 10:00", "2026-11-30T10:00:00Z"),  # naive: taken as UTC
        ("0999-05-01T00:00:00Z", "0999-05-01T00:00:00Z"),  # four digits, as documented
    ],
)
def test_timestamps_are_utc_with_four_digit_years(text: str, utc: str) -> None:
    assert iso_utc(text) == utc


def test_a_timestamp_outside_utc_is_a_value_error_not_a_crash() -> None:
    with pytest.raises(ValueError, match="out of range"):
        iso_utc("0001-01-01T00:00:00+01:00")


def test_a_crash_inside_an_append_keeps_every_earlier_record_and_the_next_starts_anew(
    tmp_path: Path,
) -> None:
    writer = Writer(tmp_path / "w", tmp_path / "lock", 1 << 20, fsync=False)
    segment, _, _ = writer.append(new_record("turn", "whole"))
    kept = segment.read_bytes()
    cut = frame(new_record("turn", "cut by a crash"))
    # the memory announces the append before its bytes; the crash leaves half of them
    (tmp_path / "lock.last").write_text(f"{segment.name} {len(kept) + len(cut)}\n")
    segment.write_bytes(kept + cut[:9])

    placed, offset, _ = writer.append(new_record("turn", "after"))

    assert segment.read_bytes() == kept  # the torn bytes went aside, nothing else changed
    assert (tmp_path / "torn" / f"{segment.name}.torn").read_bytes() == cut[:9]
    assert (placed.name, offset) == (segment.name.replace(".000.", ".001."), 0)


def test_after_a_commit_the_next_record_starts_a_new_segment(tmp_path: Path) -> None:
    writer = Writer(tmp_path / "w", tmp_path / "lock", 1 << 20, fsync=False)
    committed, _, _ = writer.append(new_record("turn", "committed"))
    before = committed.read_bytes()
    with writer.locked():
        writer.close()

    placed, _, _ = writer.append(new_record("turn", "after the commit"))
    again, _, _ = writer.append(new_record("turn", "and another"))

    assert committed.read_bytes() == before
    assert placed.name == again.name == committed.name.replace(".000.", ".001.")


def test_a_clock_gone_back_keeps_writing_the_later_days_segment(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    later = folder / "2999-01-01.000.krd"
    later.write_bytes(frame(new_record("turn", "from a clock ahead")))
    (tmp_path / "lock.last").write_text(f"{later.name} {later.stat().st_size}\n")
    writer = Writer(folder, tmp_path / "lock", 1 << 20, fsync=False)

    placed = [writer.append(new_record("turn", f"now {i}"))[0] for i in range(3)]

    assert {p.name for p in placed} == {later.name}  # not one new segment per record
