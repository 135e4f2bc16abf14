"""Where the haystack's segment files live, and the cheap test every git hook makes first:
has any segment changed since it was indexed? Only then is the log reader loaded."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

SEGMENT_SUFFIX = ".krd"
# How records are read into rows; raised when the same record reads differently (2: tags
# trimmed, in lower case and without '#'; 3: each row keeps the digest of its frame, and a
# record whose text does not match its hash is marked; 4: a `<private>` span an older memidx
# filed is indexed as [REDACTED:private]; 5: that marker and such a span indexed as a note's
# span is, PRIVATE_STAND_IN, and a `␡` of the record's own told from it; 6: a U+FE0E after
# the filed marker dropped, as after a span), so the next sync
# indexes every record again. An index that does not record it is from before, when tags were
# stored as filed.
RECORD_READER = "6"
RECORD_READER_KEY = "record_reader"  # state key: the record reader the rows were made by


def segments(folder: Path) -> Iterator[Path]:
    """Every segment under the haystack folder (all writers), in a stable order."""
    if folder.is_dir():
        yield from sorted(folder.glob(f"*/*{SEGMENT_SUFFIX}"))


def segments_changed(
    root: Path, folder: Path, indexed: Mapping[str, tuple[int, int, int, int]]
) -> bool:
    """True when a segment was added, removed, or differs in size or modification time from
    what the index recorded (`RecordStore.segments()`)."""
    seen = 0
    for path in segments(folder):
        stat = path.lstat()  # the link, not what it names (maybe nothing)
        known = indexed.get(path.relative_to(root).as_posix())
        if known is None or known[:2] != (stat.st_size, stat.st_mtime_ns):
            return True
        seen += 1
    return seen != len(indexed)
