"""A forgotten record's bytes leave a segment by a frame of the same length that keeps only
its id, kind, drawer and time (`memidx haystack purge`): pure functions over a segment's bytes,
so every other record keeps its offset (its ref)."""

from __future__ import annotations

import json

from memidx.hashes import content_hash
from memidx.haystack.frames import FORGET, HEADER, MAGIC, Located, scan_bytes


def blank_frame(located: Located) -> bytes:
    """A frame of exactly the forgotten record's length: its id, kind, drawer and time, and
    spaces for text (with their hash, so the record reads as intact)."""
    record = located.record
    size = located.length - HEADER.size

    def payload(text: str) -> bytes:
        data: dict[str, object] = {
            "id": record.id, "kind": record.kind, "drawer": record.drawer, "ts": record.ts,
            "tags": [], "text": text, "hash": content_hash(text),
        }  # fmt: skip
        return json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8")

    spare = size - len(payload(""))  # spaces are one byte each, never escaped
    if spare < 0:
        raise ValueError(f"record {record.id} is too short to blank in place")
    return HEADER.pack(MAGIC, size) + payload(" " * spare)


def blanked(data: bytes, forgotten: set[str]) -> tuple[bytes, int]:
    """The segment's bytes with every forgotten record blanked; and how many were."""
    out = bytearray(data)
    count = 0
    for located in scan_bytes(data).records:
        record = located.record
        if record.id in forgotten and record.text.strip() and record.kind != FORGET:
            out[located.offset : located.offset + located.length] = blank_frame(located)
            count += 1
    return bytes(out), count


def blanked_or_none(data: bytes, forgotten: set[str]) -> bytes | None:
    """The segment's bytes with the forgotten records blanked, None when it holds none (a
    segment that names no forgotten id is not even scanned)."""
    if not names_any(data, forgotten):
        return None
    new, count = blanked(data, forgotten)
    return new if count else None


def names_any(data: bytes, forgotten: set[str]) -> bool:
    """Whether the segment's bytes name a forgotten id at all (a frame holds its id as is)."""
    return any(ident.encode() in data for ident in forgotten)
