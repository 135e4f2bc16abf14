"""What `remember` redacted before a note was written: each secret and `<private>` span of its
title, tags, body and extra fields, by field, line and kind (never the secret), said to the
person (a notice, an error's clause) and to an agent (memidx.remember/1's `redacted`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memidx.frozen import Value
from memidx.haystack.redaction import stored_tags

if TYPE_CHECKING:
    from memidx.secrets.detect import Redaction

ALLOW_HINT = "a false positive in the body is kept by `memidx: allow-secret` on its line"


class Redacted(Value):
    """One secret or `<private>` span replaced by `[REDACTED:<kind>]`: the field it was in
    (title, tags, body, summary_of), its 1-based line in that field as given, its kind, and
    for a tag its 0-based place in the tags as read (every tag's line is 1: which of them
    was not said)."""

    field: str
    line: int
    kind: str
    index: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"field": self.field, "line": self.line, "kind": self.kind, "index": self.index}

    def said(self) -> str:
        """Where it was, for a person: `body line 3`, `tag 2` (1-based), `title`."""
        if self.field == "tags" and self.index is not None:
            return f"tag {self.index + 1}"
        return f"body line {self.line}" if self.field == "body" else self.field


class RedactedNote(Value):
    """A note's title, tags, body and extra front-matter fields as they are written."""

    title: str
    tags: list[str]
    body: str
    fields: dict[str, object]
    redactions: tuple[Redacted, ...]


def redact_note(
    title: str, tags: Sequence[str], body: str, extra: dict[str, object]
) -> RedactedNote:
    """Title, tags and body with each secret and `<private>` span replaced by
    `[REDACTED:<kind>]` before anything is written (a tag is committed as plainly as the
    title); the note's front matter says how many (`redacted: N`). A body line with an allow
    marker (`memidx: allow-secret`) is kept, as the pre-commit check does."""
    from memidx.secrets.detect import redact_text

    done_title, done_body = redact_text(title), redact_text(body, allow=True)
    done_tags = [redact_text(tag) for tag in tags]
    done_extra = {k: redact_text(v) for k, v in extra.items() if isinstance(v, str)}
    fields = {**extra, **{k: done.text for k, done in done_extra.items()}}  # summary_of
    parts: list[tuple[str, int | None, Redaction]] = [("title", None, done_title)]
    parts += [("tags", at, done) for at, done in enumerate(done_tags)]
    parts += [("body", None, done_body), *((k, None, v) for k, v in done_extra.items())]
    found = tuple(
        Redacted(name, line, kind, at) for name, at, done in parts for line, kind in done.places
    )
    if found:
        fields["redacted"] = len(found)
    stored = list(stored_tags(t.text for t in done_tags))  # in lower case once read as typed
    return RedactedNote(done_title.text, stored, done_body.text, fields, found)


def redaction_said(ref: str, found: Sequence[Redacted]) -> str:
    """The clause naming what a note's file holds in place of what was typed, e.g.
    `notes/x.md holds [REDACTED:<kind>] in place of 2 secrets or private spans: body line 3
    (github-token), title (private), tag 2 (aws-access-key) (...)`."""
    where = ", ".join(f"{r.said()} ({r.kind})" for r in found)
    what = (
        "1 secret or private span" if len(found) == 1 else f"{len(found)} secrets or private spans"
    )
    return f"{ref} holds [REDACTED:<kind>] in place of {what}: {where} ({ALLOW_HINT})"
