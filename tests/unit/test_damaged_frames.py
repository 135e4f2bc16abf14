"""Damage is not a torn tail: a flipped byte in the header or body of a record in the middle of a
segment is reported (segment and offset), every other record is still read and indexed, and
the writer never moves intact records aside. A record whose bytes changed is read again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.haystack import damage
from memidx.haystack.frames import (
    HASH_MISMATCH,
    HEADER,
    Damage,
    Scan,
    frame,
    new_record,
    scan_bytes,
    scan_file,
    valid_end,
)
from memidx.haystack.indexing import sync_records
from memidx.haystack.writer import Writer
from memidx.index.store import Store, connect_memory

TEXTS = [f"turn number {i} about the build cache" for i in range(12)]
MIDDLE = 2
FRAMES = [frame(new_record("turn", text, tags=("build",))) for text in TEXTS]
SEGMENT = b"".join(FRAMES)
OFFSETS = [sum(len(f) for f in FRAMES[:i]) for i in range(len(FRAMES))]
AT = OFFSETS[MIDDLE]
OTHERS = [(o, t) for i, (o, t) in enumerate(zip(OFFSETS, TEXTS, strict=True)) if i != MIDDLE]


def flipped(position: int, mask: int) -> bytes:
    data = bytearray(SEGMENT)
    data[position] ^= mask
    return bytes(data)


def read(scan: Scan) -> list[tuple[int, str]]:
    return [(r.offset, r.record.text) for r in scan.records]


@pytest.mark.parametrize("mask", [0x01, 0x10, 0x80, 0xFF])
@pytest.mark.parametrize("byte", range(HEADER.size))
def test_a_flip_in_a_middle_header_is_damage_and_every_other_record_is_read(
    byte: int, mask: int
) -> None:
    data = flipped(AT + byte, mask)
    scan = scan_bytes(data)
    assert read(scan) == OTHERS
    assert [(d.offset, d.length) for d in scan.damaged] == [(AT, len(FRAMES[MIDDLE]))]
    assert (scan.end, scan.torn) == (len(data), 0)  # nothing here is a torn tail
    assert valid_end(data) == len(data)


@pytest.mark.parametrize("mask", [0x01, 0x20, 0xFF])
def test_a_flip_anywhere_in_a_middle_body_never_costs_another_record(mask: int) -> None:
    for byte in range(HEADER.size, len(FRAMES[MIDDLE])):
        data = flipped(AT + byte, mask)
        scan = scan_bytes(data)
        assert [r for r in read(scan) if r[0] != AT] == OTHERS, byte
        assert (scan.end, scan.torn, valid_end(data)) == (len(data), 0, len(data)), byte
        middle = [r for r in scan.records if r.offset == AT]
        if not middle:  # unreadable: skipped up to the next record, and reported
            assert [(d.offset, d.length) for d in scan.damaged] == [(AT, len(FRAMES[MIDDLE]))]
        elif middle[0].record.text != TEXTS[MIDDLE] or not middle[0].intact:
            assert scan.damaged == [Damage(AT, len(FRAMES[MIDDLE]), HASH_MISMATCH)], byte
        else:  # a flip outside the text and its hash (e.g. in the id): the frame's digest
            assert middle[0].digest != scan_bytes(SEGMENT).records[MIDDLE].digest, byte


def test_a_false_magic_inside_a_record_never_passes_for_a_frame() -> None:
    inner = frame(new_record("turn", "quoted frame"))
    tricky = frame(new_record("turn", "a transcript that quotes " + inner.decode("latin-1")))
    data = FRAMES[0] + bytes([0]) + tricky[1:] + FRAMES[1]  # the second frame's magic is cut
    scan = scan_bytes(data)
    assert read(scan) == [(0, TEXTS[0]), (len(data) - len(FRAMES[1]), TEXTS[1])]
    assert [d.offset for d in scan.damaged] == [len(FRAMES[0])]


@pytest.mark.parametrize(
    ("byte", "mask"), [(0, 0xFF), (3, 0x01), (4, 0x01), (7, 0x80), (20, 0xFF), (40, 0x20)]
)
def test_the_writer_never_moves_records_after_damage_aside(
    tmp_path: Path, byte: int, mask: int
) -> None:
    writer = Writer(tmp_path / "w", tmp_path / "lock", 1 << 20, fsync=False)
    segment = [writer.append(new_record("turn", text))[0] for text in TEXTS][-1]
    damaged = bytearray(segment.read_bytes())
    at = scan_file(segment).records[MIDDLE].offset
    damaged[at + byte] ^= mask
    segment.write_bytes(bytes(damaged))

    placed, offset, _ = writer.append(new_record("turn", "filed after the damage"))

    assert (placed, offset) == (segment, len(damaged))
    assert segment.read_bytes().startswith(bytes(damaged))  # nothing truncated, nothing moved
    assert not (tmp_path / "torn").exists()
    texts = [r.record.text for r in scan_file(segment).records]
    assert [t for t in TEXTS if t not in texts] in ([], [TEXTS[MIDDLE]])
    assert texts[-1] == "filed after the damage"


def segment_config(root: Path, data: bytes) -> tuple[Config, Path]:
    folder = root / "notes" / "haystack" / "writer"
    folder.mkdir(parents=True)
    path = folder / "2026-01-01.000.krd"
    path.write_bytes(data)
    return Config(root=root, index_path=root / "index.sqlite", in_git=False), path


REF = "notes/haystack/writer/2026-01-01.000.krd"


def test_damage_is_reported_by_segment_and_offset_and_every_other_record_indexed(
    tmp_path: Path,
) -> None:
    config, _ = segment_config(tmp_path, flipped(AT, 0xFF))
    store = Store(connect_memory())
    report = sync_records(config, store, full=True)
    assert sorted(bodies(store)) == sorted(t for _, t in OTHERS)
    assert report.torn == {}
    assert report.warnings() == [
        f"warning: {REF}@{AT}: {len(FRAMES[MIDDLE])} unreadable bytes skipped (no KRD1 magic); "
        "the records after them are indexed"
    ]
    assert damage.recorded(store) == ({}, [report.warnings()[0].removeprefix("warning: ")])


def test_a_record_whose_text_changed_is_read_again_and_marked(tmp_path: Path) -> None:
    config, path = segment_config(tmp_path, SEGMENT)
    store = Store(connect_memory())
    sync_records(config, store, full=True)
    path.write_bytes(SEGMENT.replace(b"turn number 2 about", b"turn number 2 ABOUT"))

    report = sync_records(config, store, full=True)  # what `memidx ingest` runs

    assert "turn number 2 ABOUT the build cache" in bodies(store)
    assert report.warnings() == [f"warning: {REF}@{AT}: {HASH_MISMATCH}"]
    meta = store.conn.execute(
        "SELECT meta FROM documents WHERE source_ref = ?", (f"{REF}@{AT}",)
    ).fetchone()[0]
    assert json.loads(meta)["damaged"]
    path.write_bytes(SEGMENT)  # restored from git: the warning and the mark go
    sync_records(config, store)
    assert damage.recorded(store) == ({}, [])
    assert "turn number 2 about the build cache" in bodies(store)


def test_a_record_whose_other_fields_changed_is_read_again(tmp_path: Path) -> None:
    config, path = segment_config(tmp_path, SEGMENT)
    store = Store(connect_memory())
    sync_records(config, store, full=True)
    path.write_bytes(SEGMENT.replace(b'"drawer": "general"', b'"drawer": "General"', 1))
    sync_records(config, store, full=True)
    meta = store.conn.execute(
        "SELECT meta FROM documents WHERE source_ref = ?", (f"{REF}@0",)
    ).fetchone()[0]
    assert json.loads(meta)["drawer"] == "General"
    assert json.loads(meta)["frame"] == scan_file(path).records[0].digest


def bodies(store: Store) -> list[str]:
    rows = store.conn.execute("SELECT body FROM documents WHERE source_kind = 'turn'")
    return [str(r[0]) for r in rows]
