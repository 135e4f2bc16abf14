"""Crash safety: a log cut at any byte of its last record loses only that record; every earlier
record is read and indexed, and the writer's next append works and keeps the torn bytes aside."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.haystack.damage import recorded
from memidx.haystack.frames import frame, new_record, scan_file
from memidx.haystack.indexing import file_record, sync_records
from memidx.haystack.segments import segments_changed
from memidx.haystack.writer import Writer
from memidx.index.store import RecordStore, Store, connect_memory


def test_every_cut_inside_the_last_record_keeps_all_earlier_records(tmp_path: Path) -> None:
    records = [new_record("turn", f"earlier turn {i}", session="s") for i in range(3)]
    last = new_record("turn", "the last turn, cut by a crash", session="s")
    head = b"".join(frame(r) for r in records)
    whole = head + frame(last)
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    for cut in range(len(head), len(whole)):
        root = tmp_path / f"cut{cut}"
        folder = root / "notes" / "haystack" / "writer"
        folder.mkdir(parents=True)
        segment = folder / f"{day}.000.krd"
        segment.write_bytes(whole[:cut])
        config = Config(root=root, index_path=root / ".memidx" / "index.sqlite", in_git=False)
        store = Store(connect_memory())
        report = sync_records(config, store, full=True)
        assert report.scanned == 3, cut
        assert report.damaged == {}, cut  # a cut last record is a torn tail, never damage
        assert report.torn.get("notes/haystack/writer/" + segment.name, 0) == cut - len(head)
        assert sorted(_texts(store)) == [f"earlier turn {i}" for i in range(3)], cut

        after = new_record("turn", "appended after the crash", session="s")
        (root / "lock.last").write_text(f"{segment.name} {len(head)}\n")  # it wrote `head`
        Writer(folder, root / "lock", segment_bytes=1 << 20, fsync=False).append(after)
        torn_file = root / "torn" / f"{segment.name}.torn"  # beside the index, never committed
        assert (torn_file.read_bytes() if torn_file.exists() else b"") == whole[len(head) : cut]
        assert [r.record.text for r in scan_file(segment).records][-1] == after.text
        sync_records(config, store)
        assert sorted(_texts(store)) == sorted(
            [f"earlier turn {i}" for i in range(3)] + [after.text]
        )
        store.conn.close()


def _texts(store: Store) -> list[str]:
    return [
        str(r[0])
        for r in store.conn.execute("SELECT body FROM documents WHERE source_kind = 'turn'")
    ]


@pytest.mark.parametrize(
    "crash", [True, False], ids=["append-cut-by-a-crash", "bytes-added-by-hand"]
)
def test_a_torn_tail_the_writer_moved_aside_is_no_longer_reported(
    tmp_path: Path, crash: bool
) -> None:
    """The filing after a torn tail moves it aside; the index then said the segment had
    changed and still held a torn tail, so `memidx status` failed until the next sync."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", in_git=False)
    folder = tmp_path / "notes" / "haystack" / "writer"
    writer = Writer(folder, tmp_path / ".memidx" / "haystack.lock", 1 << 20, fsync=False)
    store = Store(connect_memory())
    filed = file_record(config, store, new_record("turn", "the first turn"), writer)
    segment = tmp_path / filed.ref.rpartition("@")[0]
    cut = frame(new_record("turn", "a turn cut short"))
    if crash:  # the writer announced the whole frame, then died inside it
        writer.last.write_text(f"{segment.name} {segment.stat().st_size + len(cut)}\n")
    with segment.open("ab") as out:
        out.write(cut[: len(cut) // 2])
    sync_records(config, store)  # a sync (or the next filing) finds the torn tail
    assert recorded(store)[0] != {}

    file_record(config, store, new_record("turn", "the turn after"), writer)

    assert recorded(store) == ({}, [])
    assert not segments_changed(tmp_path, folder.parent, RecordStore(store.conn).segments())
    assert sorted(_texts(store)) == ["the first turn", "the turn after"]
