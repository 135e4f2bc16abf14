"""How far the index is from the segments on disk (`memidx status`, `memidx reconcile`):
records missing, orphaned or stale, the segments that changed, and the damage found."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from memidx.config import Config
from memidx.haystack import damage
from memidx.haystack.forgotten import forgotten, kept
from memidx.haystack.frames import KINDS, scan_file
from memidx.haystack.indexing import haystack_folder, reader_changed, segment_ref
from memidx.haystack.segments import segments
from memidx.index.store import RecordStore, Store


@dataclass(frozen=True, slots=True)
class RecordDrift:
    """Records on disk but not indexed, indexed but not on disk, or indexed differently; and
    the damage found in the segments (`<segment>@<offset>: ...` lines)."""

    missing: int = 0
    orphaned: int = 0
    stale: int = 0
    changed_segments: tuple[str, ...] = ()
    vanished: Mapping[str, int] = field(default_factory=dict[str, int])  # segment -> records
    damaged: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return self.missing + self.orphaned + self.stale


def record_drift(config: Config, store: Store, *, deep: bool) -> RecordDrift:
    """Compare segments with the index: `deep` reads every record, else only sizes and times
    of the segment files are compared (cheap enough for `memidx status`). Rows another
    record reader made are all stale, and their segments changed."""
    outdated = reader_changed(store)
    known = RecordStore(store.conn).segments()
    changed: list[str] = []
    damaged: list[str] = []
    missing = orphaned = stale = 0
    for path in segments(haystack_folder(config)):
        ref = segment_ref(config, path)
        stat = path.lstat()  # a link (dangling too): no raise, its change seen
        seen = known.pop(ref, None)
        if not deep:
            if outdated or seen is None or seen[:2] != (stat.st_size, stat.st_mtime_ns):
                changed.append(ref)
            continue
        scan = scan_file(path)
        damaged += [damage.damage_line(ref, found) for found in scan.damaged]
        gone = forgotten(store, scan.records)
        wanted = {
            f"{ref}@{r.offset}": (r.record.kind, r.digest) for r in scan.records if kept(r, gone)
        }
        indexed = RecordStore(store.conn).frames_with_prefix(KINDS, f"{ref}@")
        missing += sum(1 for k in wanted if k not in indexed)
        orphaned += sum(1 for k in indexed if k not in wanted)
        stale += sum(1 for k, v in wanted.items() if k in indexed and (outdated or indexed[k] != v))
        if outdated or wanted != indexed:
            changed.append(ref)
    for ref in known:
        changed.append(ref)
        orphaned += known[ref][3]
    vanished = {ref: known[ref][3] for ref in known}  # indexed, but the file is gone
    return RecordDrift(missing, orphaned, stale, tuple(changed), vanished, tuple(damaged))
