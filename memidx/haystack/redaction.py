"""What a record may hold: its text and its labels (tags, drawer, agent, session, summary_of) with
secrets and `<private>` spans replaced, before any byte of it is written (every filing passes here:
file-turn, archive-transcript, agents' capture and the MCP server all call
memidx.haystack.indexing.file_record)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from memidx.hashes import content_hash
from memidx.haystack.frames import Record
from memidx.notes.note import clean_words

LABELS = ("drawer", "agent", "session", "summary_of")
PLACEHOLDER = re.compile(r"(\[REDACTED:[^\]]*\])")  # as memidx.secrets.patterns.redact writes it


def redacted(record: Record) -> Record:
    """The record with `[REDACTED:<kind>]` for each secret and private span of its text and
    labels, and their number in `redacted` (0 and the same record when there are none): a
    label is written to the log, indexed and shown as plainly as the text."""
    from memidx.secrets.detect import redact_text

    done = redact_text(record.text)
    labels = {k: v for k in LABELS if isinstance(v := getattr(record, k), str)}
    found = _labels_redacted(record.tags, labels)
    tags, shown, count = found or (record.tags, labels, 0)
    tags = stored_tags(tags)  # read as typed above: in lower case, AKIA... is no key it knows
    if not count and not done.count:
        return record if tags == record.tags else replace(record, tags=tags)
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


def stored_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Tags as memidx stores them (memidx.notes.note.clean_words: trimmed, in lower case, each
    once), once redacted as typed: put in lower case first, an AWS access key (`AKIA...`) or a
    Google API key (`AIza...`) was no secret the detector knows, and was committed and pushed
    in lower case. A `[REDACTED:<kind>]` in a tag stays as redaction wrote it."""
    return clean_words((_lowered(tag) for tag in tags), lower=False)


def _lowered(tag: str) -> str:
    return "".join(
        part if PLACEHOLDER.fullmatch(part) else part.lower() for part in PLACEHOLDER.split(tag)
    )
