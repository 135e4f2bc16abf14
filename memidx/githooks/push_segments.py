"""What a pushed haystack segment holds that the remote may lack, read as the pre-commit check
reads a staged one: every record's text, and here its labels too, and any bytes that are no
record (damage, a torn tail). memidx redacts a record before it files it, but a segment
committed with `--no-verify`, written by another tool or edited by hand is pushed as it is.

Segments are appended to, so a commit usually adds a few records after the bytes its parent
held: when the pushed blob starts with the parent's blob and the parent's frames end where its
bytes do, only what follows is read. Whatever the parent held is on the remote
already or is read where the push sends it (the parent's own commit)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import cast

from memidx.frozen import Value
from memidx.haystack.frames import HASH_MISMATCH, HEADER, scan_bytes, valid_end

NO_RECORD = " in bytes that are no record"
IN_LABELS = " in the record's labels"


class Part(Value):
    """A text of a segment to check: where it starts, whether its lines are counted, and what
    to add to the kind of a secret found in it (a record's text: nothing)."""

    offset: int
    text: str
    lines: bool = True
    about: str = ""


def segment_parts(data: bytes, before: Sequence[bytes] = ()) -> Iterator[Part]:
    """The texts of a segment's blob after the longest of `before` (the blobs of the same path
    in the commit's parents) it starts with, read from the start when none."""
    start = max((len(old) for old in before if _after(data, old)), default=0)
    scan = scan_bytes(data[start:] if start else data)
    for located in scan.records:
        offset = start + located.offset
        yield Part(offset, located.record.text)
        payload = data[offset + HEADER.size : offset + located.length]
        labels = "\n".join(_strings(json.loads(payload), skip="text"))
        yield Part(offset, labels, lines=False, about=IN_LABELS)
    rest = [(d.offset, d.length) for d in scan.damaged if d.reason != HASH_MISMATCH]
    if scan.torn:
        rest.append((scan.end, scan.torn))
    for offset, length in sorted(rest):
        text = data[start + offset : start + offset + length].decode("utf-8", "replace")
        yield Part(start + offset, text, about=NO_RECORD)


def _after(data: bytes, old: bytes) -> bool:
    """Whether `data` starts with `old`, whose frames end where its bytes do (so a record of
    `data` starts there)."""
    return 0 < len(old) <= len(data) and data.startswith(old) and valid_end(old) == len(old)


def _strings(value: object, skip: str) -> Iterator[str]:
    """Every key and string value of a record's JSON but the one named `skip`, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in cast(dict[str, object], value).items():
            if key != skip:
                yield key
                yield from _strings(item, skip)
    elif isinstance(value, list):
        for item in cast(list[object], value):
            yield from _strings(item, skip)
