"""Compare what the index holds with what the notes source holds (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memidx.frozen import Value
from memidx.git.change import Change
from memidx.notes.note import is_note_path

MODE_SYMLINK = "120000"


class DocState(Value):
    """What the index knows of one document, enough to tell whether it is stale."""

    id: int
    content_hash: str
    blob_id: str | None


class Skip(Value):
    """A file the index knows about but could not index."""

    source_kind: str
    source_ref: str
    blob_id: str | None
    reason: str


class SourceFile(Value):
    """A note file in the source (a commit's tree or the working tree)."""

    ref: str
    blob_id: str
    size: int
    symlink: bool = False


class Drift(Value):
    """How the index differs from the source; empty when they are in step."""

    missing: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    orphaned: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    gone_skips: tuple[str, ...] = ()

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

    def to_json(self) -> dict[str, list[str] | list[list[str]]]:
        """The refs that differ, as `status --json` and ingest, sync and reconcile give them."""
        return {
            "missing": list(self.missing),
            "stale": list(self.stale),
            "orphaned": list(self.orphaned),
            "renamed": [[old, new] for old, new in self.renamed],
        }


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


def note_paths(changes: Sequence[Change], notes_dir: str) -> list[str]:
    """The notes' paths a diff names, old and new: never a name that is not UTF-8 (no row can
    hold one, and asking the index for one fails)."""
    paths = {p for c in changes for p in (c.old_path, c.new_path) if p}
    return sorted(p for p in paths if is_note_path(p, notes_dir))


def from_changes(
    changes: Sequence[Change],
    notes_dir: str,
    indexed: Mapping[str, DocState],
    skipped: Mapping[str, Skip],
) -> tuple[Drift, list[SourceFile]]:
    """The drift a diff between the indexed commit and HEAD makes, and the files to read.
    `indexed` and `skipped` need only hold the paths the changes name."""
    renamed: list[tuple[str, str]] = []
    orphaned: list[str] = []
    gone_skips: list[str] = []
    to_read: dict[str, SourceFile] = {}

    def drop(ref: str) -> None:
        if ref in indexed:
            orphaned.append(ref)
        elif ref in skipped:
            gone_skips.append(ref)

    def note(path: str | None) -> str | None:
        return path if path is not None and is_note_path(path, notes_dir) else None

    for change in changes:
        old, new = note(change.old_path), note(change.new_path)
        if new is not None and change.new_blob is not None:
            symlink = change.new_mode == MODE_SYMLINK
            to_read[new] = SourceFile(new, change.new_blob, 0, symlink=symlink)
        if old is None or old == new:
            continue
        if new is not None and change.status == "R" and old in indexed:
            renamed.append((old, new))  # still read: a title taken from the file name changes
        elif change.status != "C":
            drop(old)
    return (
        Drift(
            missing=tuple(sorted(r for r in to_read if r not in indexed)),
            stale=tuple(sorted(r for r in to_read if r in indexed)),
            orphaned=tuple(sorted(orphaned)),
            renamed=tuple(sorted(renamed)),
            gone_skips=tuple(sorted(gone_skips)),
        ),
        sorted(to_read.values(), key=lambda f: f.ref),
    )
