"""What a record may hold: its text with secrets and `<private>` spans replaced, before any
byte of it is written (every filing passes here: file-turn, archive-transcript, agents' capture
and the MCP server all call memidx.haystack.indexing.file_record)."""

from __future__ import annotations

from dataclasses import replace

from memidx.hashes import content_hash
from memidx.haystack.frames import Record


def redacted(record: Record) -> Record:
    """The record with `[REDACTED:<kind>]` for each secret and private span of its text, and
    their number in `redacted` (0 and the same record when there are none)."""
    from memidx.secrets.detect import redact_text

    done = redact_text(record.text)
    if not done.count:
        return record
    return replace(record, text=done.text, hash=content_hash(done.text), redacted=done.count)
