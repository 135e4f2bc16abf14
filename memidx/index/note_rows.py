"""What a note file becomes in the index: the row of a note, or why a symlink is skipped, or
a name that is not UTF-8."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from memidx.index.added import note_meta
from memidx.index.drift import Skip
from memidx.index.store import NewDocument
from memidx.notes.note import NAME_NOT_UTF8, Note, is_note_path_not_utf8
from memidx.text import display

NOTE = "note"


def symlink_reason(ref: str, target: bytes) -> str:
    """Why a symlink is skipped, from the link alone (never the disk: the reason must not
    depend on what the working tree holds, and a loop must not hang or crash the sync)."""
    link = target.decode("utf-8", "replace")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(ref), link))
    if link.startswith("/") or resolved == ".." or resolved.startswith("../"):
        return f"symlink pointing outside the repository ({link}); links are not followed"
    return f"symlink to {link} (links are not followed; the target is indexed on its own)"


def skips_not_utf8(refs: Iterable[str], folder: str) -> list[Skip]:
    """The notes among `refs` left out only because their names are not UTF-8, as skips to
    report, named with their bytes escaped (never stored: no row can hold such a name)."""
    return [
        Skip(NOTE, display(ref), None, NAME_NOT_UTF8)
        for ref in sorted(refs)
        if is_note_path_not_utf8(ref, folder)
    ]


def note_document(note: Note, blob: str, added: str | None = None) -> NewDocument:
    """The row a parsed note becomes; `added`: the date git gives it (memidx.index.added)."""
    meta = note_meta(note.created, note.lang, added)
    return NewDocument(
        source_kind=NOTE,
        source_ref=note.ref,
        title=note.title,
        tags=note.tags,
        aliases=note.aliases,
        body=note.body,
        body_line=note.body_line,
        content_hash=note.content_hash,
        blob_id=blob,
        meta=meta,
    )
