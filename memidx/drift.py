"""Compare what the index holds with what the notes source holds (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from memidx.store import DocState, Skip


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A note file in the source (a commit's tree or the working tree)."""

    ref: str
    blob_id: str
    size: int
    symlink: bool = False


@dataclass(frozen=True, slots=True)
class Drift:
    """How the index differs from the source; empty when they are in step."""

    missing: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    orphaned: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    gone_skips: tuple[str, ...] = field(default=())

    @property
    def total(self) -> int:
        return len(self.missing) + len(self.stale) + len(self.orphaned) + len(self.renamed)

    def summary(self) -> str:
        parts = [
            f"{len(self.missing)} missing",
            f"{len(self.stale)} stale",
            f"{len(self.orphaned)} orphaned",
        ]
        if self.renamed:
            parts.append(f"{len(self.renamed)} renamed")
        return ", ".join(parts)


def compare(
    source: Mapping[str, SourceFile],
    indexed: Mapping[str, DocState],
    skipped: Mapping[str, Skip],
) -> Drift:
    """What must change in the index so that it mirrors `source`."""
    missing: list[str] = []
    stale: list[str] = []
    for ref, file in source.items():
        doc = indexed.get(ref)
        if doc is not None:
            if doc.blob_id != file.blob_id:
                stale.append(ref)
        elif ref not in skipped or skipped[ref].blob_id != file.blob_id:
            missing.append(ref)
    orphaned = [ref for ref in indexed if ref not in source]
    renamed = _renames(missing, orphaned, source, indexed)
    moved_from = {old for old, _ in renamed}
    moved_to = {new for _, new in renamed}
    return Drift(
        missing=tuple(sorted(r for r in missing if r not in moved_to)),
        stale=tuple(sorted(stale)),
        orphaned=tuple(sorted(r for r in orphaned if r not in moved_from)),
        renamed=tuple(sorted(renamed)),
        gone_skips=tuple(sorted(r for r in skipped if r not in source)),
    )


def _renames(
    missing: list[str],
    orphaned: list[str],
    source: Mapping[str, SourceFile],
    indexed: Mapping[str, DocState],
) -> list[tuple[str, str]]:
    """Pair an orphaned row with a missing file of the same blob: a rename keeps the row."""
    by_blob: dict[str, list[str]] = {}
    for ref in sorted(orphaned):
        blob = indexed[ref].blob_id
        if blob:
            by_blob.setdefault(blob, []).append(ref)
    pairs: list[tuple[str, str]] = []
    for ref in sorted(missing):
        olds = by_blob.get(source[ref].blob_id)
        if olds:
            pairs.append((olds.pop(0), ref))
    return pairs
