"""A record's optional fields (who filed it, its session, what it summarises or forgets, how
many secrets were replaced) go into its frame and its index row when it has them, after the
fields every record has, and are left out when it has not."""

from __future__ import annotations

import dataclasses

import pytest

from memidx.haystack.frames import Located, Record
from memidx.haystack.indexing import record_document

BARE = Record("r1", "turn", "d", "2026-12-05T06:00:00Z", (), "a turn", "h")
FULL = {"agent": "codex", "session": "s1", "summary_of": "r0", "forgets": "r9", "redacted": 2}


@pytest.mark.parametrize(
    "optional",
    [{}, {"agent": "codex", "session": "s1", "redacted": 2}, FULL],
    ids=["none", "some", "all"],
)
def test_a_record_carries_the_optional_fields_it_has(optional: dict[str, object]) -> None:
    record = dataclasses.replace(BARE, **optional)

    frame = record.to_json()
    meta = record_document("notes/haystack/a.krd", Located(record, 8, 64, "dg")).meta

    assert list(frame)[7:] == list(optional)  # after id, kind, drawer, ts, tags, text, hash
    assert list(meta)[6:] == list(optional)  # after id, drawer, ts, offset, length, frame
    assert {k: frame[k] for k in optional} == {k: meta[k] for k in optional} == optional
