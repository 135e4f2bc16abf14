"""`memidx forget` of a record: its log is append-only, so a tombstone the index honours at
once, and on every clone after a pull, forgets it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from memidx.config import Config
from memidx.errors import IndexUnusable, MemidxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.memory.forget import Forgotten


def forget_record(config: Config, ref: str, notice: Callable[[str], None] | None) -> Forgotten:
    """Forget the record `ref` names (its id or `<segment>@<offset>`) by a tombstone; one
    forgotten before is said so, nothing written."""
    from memidx.haystack.filing import file
    from memidx.haystack.frames import new_record
    from memidx.haystack.lookup import without_line
    from memidx.memory.forget import Forgotten
    from memidx.memory.forget_vectors import scrub_forgotten

    record_id, before = _record_id(config, ref)
    named = without_line(ref)  # as the person named it: its id or `<segment>@<offset>`
    if before is not None:  # done already: a second tombstone would add nothing
        return Forgotten("record", named, id=record_id, tombstone=before, already=True)
    tombstone = replace(new_record("forget", f"forgets {record_id}"), forgets=record_id)
    filed = file(config, tombstone, notice)  # indexed: the record and its vectors dropped
    scrub_forgotten(config, f"{record_id} is forgotten", notice)
    return Forgotten("record", named, id=record_id, tombstone=filed.id)


def _record_id(config: Config, ref: str) -> tuple[str, str | None]:
    """The id of the record `ref` names, as the index knows it, and the tombstone that
    forgot it already (None when it was not forgotten)."""
    from memidx.haystack.left_segments import left_record
    from memidx.haystack.lookup import show, tombstone_named, without_line
    from memidx.index.store import RecordStore, open_store

    ref = without_line(ref)
    try:
        store, _ = open_store(config.index_path, write=False)
    except IndexUnusable:  # missing, not built, too old: a record filed in the log alone is
        return _filed_in_log_alone(config, ref)  # forgotten (its filing builds the index)
    try:
        records = RecordStore(store.conn)
        if "@" in ref:
            record_id = records.id_at(ref)
        else:
            record_id = ref if records.record_ref(ref) is not None else None
        forgets = None if record_id is None else records.forgets(record_id)
        gone = _forgotten_at(config, ref) if record_id is None else None
        before = None if gone is None else records.tombstone_of(gone)
    finally:
        store.conn.close()
    if gone is not None and before is not None:
        return gone, before
    if record_id is None and "@" in ref:  # show's one line: malformed (2), none (1)
        record_id = show(config, ref).record.id
    elif record_id is None and (left := left_record(config, ref)) is not None:
        record_id = show(config, left).record.id  # filed in the log alone, not read into it yet
    if record_id is None:
        raise MemidxError(
            f"no note or record {ref!r} in memory", "give a note's path or a record's id or ref"
        )
    if forgets is not None:  # blanked by purge, it would no longer forget: the record is back
        raise tombstone_named(record_id, forgets)
    return record_id, None


def _filed_in_log_alone(config: Config, ref: str) -> tuple[str, str | None]:
    """The id of the record `ref` names, filed in the log alone while readers refuse the
    index, and the tombstone on disk that forgot it already: pulled with no hooks, it is in no
    index (show refuses such a record: it was forgotten)."""
    from memidx.haystack.forgotten import tombstone_on_disk
    from memidx.haystack.indexing import haystack_folder
    from memidx.haystack.left_segments import left_record, left_refs
    from memidx.haystack.lookup import show

    if "@" in ref:
        left = ref.rpartition("@")[0] in left_refs(config)
        record_id = _forgotten_at(config, ref) if left else None
    else:
        record_id = ref if left_record(config, ref) is not None else None
    if record_id is not None:
        before = tombstone_on_disk(haystack_folder(config), record_id)
        if before is not None:
            return record_id, before
    return show(config, ref).record.id, None  # show's one line when it is none to forget


def _forgotten_at(config: Config, ref: str) -> str | None:
    """The id of the record `ref` names that the index does not hold (forgotten, maybe):
    the id itself, or the id of the record at `<segment>@<offset>` read from the segment."""
    from memidx.haystack.frames import read_at

    if "@" not in ref:
        return ref
    segment, _, offset = ref.rpartition("@")
    path = config.root / segment
    if (
        not offset.isdigit()
        or not path.is_file()
        or not path.resolve().is_relative_to(config.root.resolve())
    ):
        return None
    try:
        return read_at(path, int(offset)).id
    except (MemidxError, OSError):
        return None
