"""Hits whose source is gone from disk are left out: a record's segment removed by
`git clean -fd` (uncommitted segments are untracked files) stays in the index until the next
sync, and search must not answer with what no longer exists."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from memidx.search.lexical import SearchResult

NOTE = "note"


def drop_vanished(result: SearchResult, root: Path) -> SearchResult:
    """The result without record hits whose segment file no longer exists, renumbered, with
    a warning naming how many were dropped and what to run."""
    segments = {h.ref.rpartition("@")[0] for h in result.hits if h.kind != NOTE and "@" in h.ref}
    gone = {s for s in segments if not (root / s).is_file()}
    if not gone:
        return result
    kept = [h for h in result.hits if h.ref.rpartition("@")[0] not in gone or h.kind == NOTE]
    dropped = len(result.hits) - len(kept)
    hits = tuple(replace(h, rank=i) for i, h in enumerate(kept, 1))
    warning = (
        f"{dropped} record{'s' if dropped != 1 else ''} left out: "
        f"{len(gone)} segment file{'s' if len(gone) != 1 else ''} gone from disk "
        "(git clean, or git reset --hard after git add?): `memidx status` lists them and "
        "how to get them back; `memidx sync` drops them"
    )
    return replace(result, hits=hits, warnings=(*result.warnings, warning))
