"""What a record may hold: its text and its labels (tags, drawer, agent, session, summary_of) with
secrets and `<private>` spans replaced, before any byte of it is written (every filing passes here:
file-turn, archive-transcript, agents' capture and the MCP server all call
memidx.haystack.indexing.file_record)."""

from __future__ import annotations

from dataclasses import replace

from memidx.hashes import content_hash
from memidx.haystack.frames import Record

LABELS = ("drawer", "agent", "session", "summary_of")


def redacted(record: Record) -> Record:
    """The record with `[REDACTED:<kind>]` for each secret and private span of its text and
    labels, and their number in `redacted` (0 and the same record when there are none): a
    label is written to the log, indexed and shown as plainly as the text."""
    from memidx.secrets.detect import redact_text

    done = redact_text(record.text)
    labels = {k: v for k in LABELS if isinstance(v := getattr(record, k), str)}
    found = _labels_redacted(record.tags, labels)
    if found is None and not done.count:
        return record
    tags, shown, count = found or (record.tags, labels, 0)
    return replace(
        record,
        text=done.text,
        hash=content_hash(done.text),
        tags=tags,
        redacted=done.count + count,
        **shown,
    )


def _labels_redacted(
    tags: tuple[str, ...], labels: dict[str, str]
) -> tuple[tuple[str, ...], dict[str, str], int] | None:
    """The tags and labels redacted and how many were replaced; None when none holds a secret
    (one detector pass over them all, the common case)."""
    from memidx.secrets.detect import redact_text

    if not redact_text("\n\n".join([*tags, *labels.values()])).count:
        return None
    done_tags = [redact_text(tag) for tag in tags]
    done_labels = {key: redact_text(value) for key, value in labels.items()}
    count = sum(d.count for d in [*done_tags, *done_labels.values()])
    return tuple(d.text for d in done_tags), {k: d.text for k, d in done_labels.items()}, count
