"""A turn's and a note's labels hold no secret, nor do file-turn's errors. Tags are read for
secrets as they were typed, then stored in lower case: lower-cased first, an AWS access key or
a Google API key in a tag was no secret the detector knows, and `remember --tags` or a filed
turn committed it (in lower case, from which the key is had back)."""

from __future__ import annotations

import pytest

from memidx.errors import UsageError
from memidx.haystack.redaction import redacted, stored_tags
from memidx.haystack.turn_input import parse_turn_json, turn_record
from memidx.memory.new_note import parse_tags
from memidx.memory.note_redaction import Redacted, redact_note

AWS = "AKIAIOSFODNN7EXAMPLQ"  # the detector knows it in upper case only
GOOGLE = "AIzaSyA1234567890abcdefghijklmnopqrstuv"  # and this with its mixed case


@pytest.mark.parametrize("secret", [AWS, GOOGLE])
def test_a_filed_turns_tag_is_redacted_as_typed(secret: str) -> None:
    record = redacted(turn_record({"text": "the pelican deploy failed", "tags": ["CI", secret]}))
    assert record.tags == ("ci", record.tags[1]) and record.tags[1].startswith("[REDACTED:")
    assert secret.lower() not in repr(record) and record.redacted == 1


@pytest.mark.parametrize("secret", [AWS, GOOGLE])
def test_a_remembered_notes_tag_is_redacted_as_typed(secret: str) -> None:
    note = redact_note("title", parse_tags(f"Build, {secret}"), "body", {})
    assert note.tags[0] == "build" and note.tags[1].startswith("[REDACTED:")
    assert note.fields["redacted"] == 1 and len(note.redactions) == 1
    assert note.redactions[0].field == "tags" and note.redactions[0].line == 1


def test_tags_without_secrets_are_stored_in_lower_case_each_once() -> None:
    record = redacted(turn_record({"text": "the heron", "tags": ["#Build", "build", "CI"]}))
    assert record.tags == ("build", "ci") and record.redacted == 0
    assert parse_tags("#Build, build") == ["Build", "build"]  # remember() cleans them
    assert redact_note("t", parse_tags("#Build, build"), "b", {}).tags == ["build"]


def test_a_placeholder_in_a_tag_keeps_its_case() -> None:
    assert stored_tags(["Key [REDACTED:aws-access-key]"]) == ("key [REDACTED:aws-access-key]",)


SLACK = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"


@pytest.mark.parametrize(
    "turn",
    [
        f'{{"text": "a", "kind": "{SLACK}"}}',
        f'{{"text": "a", "ts": "{SLACK}"}}',
        f'{{"text": "a", "{SLACK}": "b"}}',  # a field's name
        f'{{"text": "a", "{SLACK}": 1, "{SLACK}": 2}}',
    ],
)
def test_a_turns_usage_error_masks_the_secret_it_names(turn: str) -> None:
    """file-turn's usage errors quoted the value they refused: a token pasted as `kind` or
    `ts`, or as a field's name, went to stderr, and through MCP to the agent."""
    with pytest.raises(UsageError) as raised:
        turn_record(parse_turn_json(turn))
    assert SLACK not in str(raised.value) and "[REDACTED:slack-token]" in str(raised.value)


def test_a_redaction_is_placed_by_field_and_line_never_with_its_secret() -> None:
    body = f"first line\n<private>a\nb</private>\nthe key {AWS} here\n"
    note = redact_note("t", [], body, {"summary_of": "<private>x</private>"})
    assert note.redactions == (
        Redacted("body", 2, "private"),
        Redacted("body", 4, "aws-access-key"),
        Redacted("summary_of", 1, "private"),
    )
    assert note.fields == {"summary_of": "[REDACTED:private]", "redacted": 3}
