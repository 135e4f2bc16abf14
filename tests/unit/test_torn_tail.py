"""Crash safety: a log cut at any byte of its last record loses only that record; every earlier
record is read and indexed, and the writer's next append works and keeps the torn bytes aside."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memidx.config import Config
from memidx.haystack.frames import frame, new_record, scan_file
from memidx.haystack.indexing import sync_records
from memidx.haystack.writer import Writer
from memidx.index.store import Store, connect_memory


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
