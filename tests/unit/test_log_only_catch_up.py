"""A record an agent's hook filed in the log alone (an index of schema 4 or older) is found
where it is, not only in the segment written last: a new day or a full segment starts another
between two filings, and the same turn (a Stop and a SessionEnd, a resumed session's
transcript, an MCP client's retry) was filed twice, and the next filing into the upgraded index
left it out of the index until a sync."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import MemidxError
from memidx.haystack import left_segments
from memidx.haystack.filing import file
from memidx.haystack.frames import Scan, scan_file
from memidx.haystack.indexing import Filed
from memidx.haystack.turn_input import make_record
from memidx.index.open import writable_index
from tests.helpers import run_in_process
from tests.unit.test_index_refold import SCHEMA_4_FTS
from tests.unit.test_index_vectors_table import SCHEMA_5_VECTORS

TURN = "a turn the hook filed in the log alone"
FILLER = "a long turn that fills the segment " + "words " * 80  # over the segment's bytes


def _old_memory(root: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A memory whose index is of schema 4, each record in a segment of its own."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.setenv("MEMIDX_SEGMENT_BYTES", "400")
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("# Alpha\n\nalpha words\n")
    assert run_in_process(root, "ingest").code == 0
    config = load_config(root)
    conn = sqlite3.connect(config.index_path, isolation_level=None)
    conn.executescript(SCHEMA_5_VECTORS + SCHEMA_4_FTS)
    conn.close()
    return config


def _file(config: Config, text: str, *, hurried: bool = True) -> Filed:
    return file(config, make_record("turn", text, session="s-4"), hurried=hurried)


def _indexed(path: Path, text: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(
            conn.execute("SELECT count(*) FROM documents WHERE body = ?", (text,)).fetchone()[0]
        )
    finally:
        conn.close()


def _in_log(root: Path, text: str) -> int:
    folder = root / "notes" / "haystack"
    return sum(
        located.record.text == text
        for segment in folder.rglob("*.krd")
        for located in scan_file(segment).records
    )


def test_a_turn_filed_in_the_log_alone_is_not_filed_again_after_a_new_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _old_memory(tmp_path, monkeypatch)
    first = _file(config, TURN)
    later = _file(config, FILLER)
    assert later.ref.split("@")[0] != first.ref.split("@")[0]  # a new segment between

    again = _file(config, TURN)

    assert (again.id, again.ref, again.duplicate) == (first.id, first.ref, True)
    assert _in_log(tmp_path, TURN) == 1


def test_the_next_filing_into_the_upgraded_index_reads_every_segment_filed_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background embed upgrades the index (no records read); the next filing, a hook's
    or `memidx file-turn`'s, reads what was filed in the log alone, not only its last segment."""
    config = _old_memory(tmp_path, monkeypatch)
    first = _file(config, TURN)
    _file(config, FILLER)
    writable_index(config).conn.close()  # the background embed's upgrade

    _file(config, "the next turn, into the upgraded index")

    assert _indexed(config.index_path, TURN) == 1
    again = _file(config, TURN, hurried=False)
    assert (again.ref, again.duplicate) == (first.ref, True)
    assert _in_log(tmp_path, TURN) == 1
    assert not (config.state_dir / "log-only").exists()  # read: not read again


def test_a_filing_in_the_log_alone_reads_a_bounded_part_of_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Weeks with no writer to upgrade the index leave many segments filed in the log alone:
    reading them all for the same record took an agent's hook past its deadline."""
    from memidx.haystack import log_only

    config = _old_memory(tmp_path, monkeypatch)
    for n in range(4):
        _file(config, f"{FILLER} {n}")
    read: list[Path] = []
    scan = log_only.scan_file

    def counted(path: Path) -> Scan:
        read.append(path)
        return scan(path)

    monkeypatch.setattr(log_only, "scan_file", counted)
    monkeypatch.setattr(log_only, "SCAN_BYTES", 1000)  # two segments of these

    _file(config, TURN)

    assert 1 <= len(read) <= 2, read


def test_a_filing_reads_a_bounded_part_of_the_log_into_the_index_and_the_next_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's hook that files into the upgraded index after days filed in the log alone
    read them all, past its deadline: killed, rolled back, and so was every hook after it."""
    config = _old_memory(tmp_path, monkeypatch)
    texts = [f"{FILLER} {n}" for n in range(3)]
    for text in texts:
        _file(config, text)
    writable_index(config).conn.close()  # the background embed's upgrade
    monkeypatch.setattr(left_segments, "READ_BYTES", 1)  # a segment a filing

    _file(config, "the next turn")

    assert [_indexed(config.index_path, text) for text in texts] == [1, 0, 1]  # and the last
    _file(config, "the turn after")
    assert [_indexed(config.index_path, text) for text in texts] == [1, 1, 1]
    _file(config, "one more turn")  # the last segment named, read already: named no more
    assert not (config.state_dir / "log-only").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_the_names_is_not_waited_on(tmp_path: Path) -> None:
    """Read by every filing and written by each in the log alone: a FIFO there hung them."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    config.state_dir.mkdir()
    os.mkfifo(config.state_dir / left_segments.LEFT)
    done: list[list[str]] = []

    def read_and_name() -> None:
        left_segments.leave(config, ["notes/haystack/w/2026-01-01.000.krd"])
        done.append(left_segments.left_refs(config))

    waiting = threading.Thread(target=read_and_name, daemon=True)
    waiting.start()
    waiting.join(5.0)
    for way in (os.O_WRONLY, os.O_RDONLY):  # a call waiting to open it (the fault) is let go
        with contextlib.suppress(OSError):
            os.close(os.open(config.state_dir / left_segments.LEFT, way | os.O_NONBLOCK))
    assert done == [[]]


def test_a_record_filed_in_the_log_alone_is_shown_and_forgotten_by_its_id_before_catch_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The id a hurried filing gave back (a held creation lock: the log alone) named no record
    for `memidx show` or `forget` until a filing or a sync read it into the index."""
    from memidx.haystack.clone_writer import clone_writer
    from memidx.haystack.log_only import file_in_log
    from memidx.haystack.lookup import show
    from memidx.memory.forget import forget

    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    (tmp_path / "notes").mkdir()
    assert run_in_process(tmp_path, "ingest").code == 0
    config = load_config(tmp_path)
    filed = file_in_log(config, make_record("turn", TURN, session="s-l"), clone_writer(config))

    assert show(config, filed.id).ref == filed.ref
    assert show(config, filed.id).record.text == TURN
    done = forget(config, filed.id)

    assert (done.kind, done.ref, done.already) == ("record", filed.id, False)
    assert _indexed(config.index_path, TURN) == 0  # read in by the tombstone's filing, dropped
    with pytest.raises(MemidxError, match="it was forgotten"):
        show(config, filed.id)
    assert forget(config, filed.id).already


def _missing(root: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A memory never indexed (its index deleted)."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("# Alpha\n\nalpha words\n")
    return load_config(root)


def _half_built(root: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """An index whose build started and never completed (a killed ingest, or one running)."""
    config = _missing(root, monkeypatch)
    writable_index(config).conn.close()
    return config


@pytest.mark.parametrize(
    "memory", [_missing, _half_built, _old_memory], ids=["missing", "half-built", "schema-4"]
)
def test_a_record_filed_in_the_log_alone_is_shown_and_forgotten_on_an_index_readers_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory: Callable[..., Config]
) -> None:
    """An agent's hook files in the log alone mostly because readers refuse the index (missing,
    not built, schema 4): `memidx show` and `forget` of the id it gave back said only that
    the index is unusable, though the record is in the log and forget builds the index."""
    from memidx.haystack.lookup import show
    from memidx.memory.forget import forget

    config = memory(tmp_path, monkeypatch)
    filed = _file(config, TURN)

    assert show(config, filed.id).record.text == TURN
    assert show(config, filed.ref).record.id == filed.id
    done = forget(config, filed.id)

    assert (done.kind, done.ref, done.already) == ("record", filed.id, False)
    assert _indexed(config.index_path, TURN) == 0  # read in by the tombstone's filing, dropped
    with pytest.raises(MemidxError, match="it was forgotten"):
        show(config, filed.id)
    assert forget(config, filed.id).already


def test_the_background_embed_lets_go_of_the_writers_lock_at_each_part_of_the_log_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background embed read every segment filed in the log alone under the writer's lock
    at once: after days of them, seconds, while an agent's hook waiting to file passed its
    deadline (1.4 s at SessionEnd). It reads READ_BYTES at a time, as a filing does."""
    from memidx.haystack import writer
    from memidx.haystack.filing import read_left

    config = _old_memory(tmp_path, monkeypatch)
    texts = [f"{FILLER} {n}" for n in range(3)]
    for text in texts:
        _file(config, text)  # a segment each, in the log alone
    store = writable_index(config)  # the background embed's upgrade
    monkeypatch.setattr(left_segments, "READ_BYTES", 1)  # a segment a part
    taken: list[int] = []
    held = writer.held_lock

    def counted(lock: Path) -> contextlib.AbstractContextManager[None]:
        taken.append(len(left_segments.left_refs(config)))  # names left when it is taken
        return held(lock)

    monkeypatch.setattr(writer, "held_lock", counted)
    try:
        read_left(config, store)
    finally:
        store.conn.close()

    assert [_indexed(config.index_path, text) for text in texts] == [1, 1, 1]
    assert taken == [3, 2, 1]  # let go between the parts
    assert not (config.state_dir / "log-only").exists()


def test_an_id_is_looked_for_in_the_segments_filed_alone_without_reading_every_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memidx show` (an agent's MCP tool call too) read every frame of every segment filed in
    the log alone for an id (~25 ms a MB: weeks of them, seconds); only a segment that holds
    its bytes is read frame by frame."""
    from memidx.haystack import frames

    config = _old_memory(tmp_path, monkeypatch)
    first = _file(config, TURN)
    _file(config, FILLER)  # another segment, named too
    read: list[int] = []
    scan = frames.scan_bytes

    def counted(data: bytes) -> Scan:
        read.append(len(data))
        return scan(data)

    monkeypatch.setattr(frames, "scan_bytes", counted)

    assert left_segments.left_record(config, "turn-20260101000000-000000000000") is None
    assert read == []
    assert left_segments.left_record(config, first.id) == first.ref
    assert len(read) == 1


def test_a_filing_waiting_for_the_writers_lock_takes_it_between_the_parts_the_embed_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background embed let go of the writer's lock between the parts of the log it reads
    and took it again at once, while a filing waiting for it looks every 20 ms: the filing
    waited for every part (seconds after days filed in the log alone), past a hook's deadline."""
    import time

    from memidx.haystack import filing
    from memidx.haystack.writer import held_lock

    config = _old_memory(tmp_path, monkeypatch)
    for n in range(4):
        _file(config, f"{FILLER} {n}")  # a segment each, in the log alone
    writable_index(config).conn.close()  # the background embed's upgrade
    monkeypatch.setattr(left_segments, "READ_BYTES", 1)  # a segment a part
    read = filing.index_segment
    parts: list[float] = []

    def slow(*args: object, **kwargs: bool) -> int:
        time.sleep(0.05)  # a MB read into the index takes ~0.5 s
        parts.append(time.monotonic())
        return read(*args, **kwargs)  # type: ignore[arg-type]

    def embed() -> None:  # its own connection, as the background embed's
        store = writable_index(config)
        try:
            filing.read_left(config, store)
        finally:
            store.conn.close()

    monkeypatch.setattr(filing, "index_segment", slow)
    reader = threading.Thread(target=embed)
    reader.start()
    try:
        deadline = time.monotonic() + 5
        while not parts and reader.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)  # the first part is under way
        with held_lock(config.state_dir / "haystack.lock"):
            taken = len(parts)
    finally:
        reader.join()

    assert 1 <= taken <= 2, f"the waiting filing took the lock after {taken} of 4 parts"
    assert [_indexed(config.index_path, f"{FILLER} {n}") for n in range(4)] == [1] * 4


def _pulled_tombstone(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Config, Filed, str]:
    """A schema-4 memory with a record filed in the log alone and another clone's tombstone
    that forgets it, pulled with no hooks (in no index); the tombstone's id."""
    from dataclasses import replace

    from memidx.haystack.frames import FORGET, frame, new_record

    config = _old_memory(root, monkeypatch)
    filed = _file(config, TURN)
    tombstone = replace(new_record(FORGET, f"forgets {filed.id}"), forgets=filed.id)
    theirs = root / "notes" / "haystack" / "theirs"
    theirs.mkdir()
    (theirs / "2026-01-01.000.krd").write_bytes(frame(tombstone))  # pulled, not indexed
    return config, filed, tombstone.id


def test_a_record_filed_in_the_log_alone_is_not_shown_once_a_pulled_tombstone_forgets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Readers refuse the index (schema 4), so whether the record is forgotten is read from
    the log: a tombstone another clone filed and this one pulled with no hooks forgets it."""
    from memidx.haystack.lookup import show

    config, filed, _ = _pulled_tombstone(tmp_path, monkeypatch)

    with pytest.raises(MemidxError, match="it was forgotten"):
        show(config, filed.id)
    with pytest.raises(MemidxError, match="it was forgotten"):
        show(config, filed.ref)


def test_a_record_filed_in_the_log_alone_that_a_pulled_tombstone_forgets_is_forgotten_already(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memidx forget` of it went through show, which refuses it (it was forgotten): exit 1,
    "no record", where any record forgotten before is forgotten already, exit 0, no write."""
    from memidx.haystack.segments import segments
    from memidx.memory.forget import forget

    config, filed, tombstone = _pulled_tombstone(tmp_path, monkeypatch)
    folder = config.notes_path / "haystack"
    before = {path: path.stat().st_size for path in segments(folder)}

    by_id = forget(config, filed.id)
    by_ref = forget(config, filed.ref)

    assert (by_id.ref, by_id.id, by_id.tombstone, by_id.already) == (
        filed.id, filed.id, tombstone, True
    )  # fmt: skip
    # the record as it was named, and its id (forget --json's ref was the id for both)
    assert (by_ref.ref, by_ref.id, by_ref.tombstone, by_ref.already) == (
        filed.ref, filed.id, tombstone, True
    )  # fmt: skip
    assert {path: path.stat().st_size for path in segments(folder)} == before  # none filed
