"""What the last reading of each segment found wrong with it (a torn tail, damage), worded once
and kept in the index, so `memidx status` reports it without reading every segment again."""

from __future__ import annotations

import json
from typing import Any, cast

from memidx.haystack.frames import HASH_MISMATCH, NOT_A_FILE, Damage
from memidx.index.store import Store

DAMAGE_KEY = "record_damage"  # state key: {segment ref: {"torn": bytes, "damaged": [...]}}
RESTORE_HINT = (
    "restore the segment from git (git checkout -- <segment>) or a backup; "
    "the records around the damage are indexed"
)


def torn_line(ref: str, size: int) -> str:
    return f"{ref}: {size} bytes of a torn record at the end are not indexed"


def damage_line(ref: str, damage: Damage) -> str:
    """`<segment>@<offset>: what is wrong`, the one wording of damage in every report."""
    if damage.reason == HASH_MISMATCH:
        return f"{ref}@{damage.offset}: {damage.reason}"
    if damage.reason == NOT_A_FILE:  # the whole path: put the segment's own file there
        return f"{ref}: {damage.reason}"
    return (
        f"{ref}@{damage.offset}: {damage.length} unreadable bytes skipped ({damage.reason}); "
        "the records after them are indexed"
    )


def remember(store: Store, ref: str, torn: int, damaged: list[Damage]) -> None:
    """Record what the reading of one segment found (nothing: forget the segment)."""
    found = _load(store)
    entry: dict[str, object] = {}
    if torn:
        entry["torn"] = torn
    if damaged:
        entry["damaged"] = [[d.offset, d.length, d.reason] for d in damaged]
    if found.get(ref) == (entry or None):
        return
    if entry:
        found[ref] = entry
    else:
        found.pop(ref, None)
    store.set_state(DAMAGE_KEY, json.dumps(found, sort_keys=True) if found else None)


def recorded(store: Store) -> tuple[dict[str, int], list[str]]:
    """(the torn tail's size of each segment that has one, damage lines) of every segment, as
    last read."""
    torn: dict[str, int] = {}
    damaged: list[str] = []
    for ref, entry in sorted(_load(store).items()):
        if entry.get("torn"):
            torn[ref] = int(entry["torn"])
        for offset, length, reason in cast(list[list[Any]], entry.get("damaged") or []):
            damaged.append(damage_line(ref, Damage(int(offset), int(length), str(reason))))
    return torn, damaged


def _load(store: Store) -> dict[str, dict[str, Any]]:
    text = store.get_state(DAMAGE_KEY)
    if not text:
        return {}
    try:
        loaded: object = json.loads(text)
    except ValueError:
        return {}  # written by nothing memidx knows: the next reading writes it anew
    return cast(dict[str, dict[str, Any]], loaded) if isinstance(loaded, dict) else {}
