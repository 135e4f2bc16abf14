"""What a transient failure leaves: everything intact, one clear line, a trace `memidx status`
shows, and nothing acknowledged lost (the leftovers of the hard transient tests)."""

from __future__ import annotations

import sqlite3

import pytest

from memidx.errors import MemidxError
from tests.cli.test_transient_hard import indexed, stdin_of
from tests.helpers import NotesRepo

__all__ = ["indexed"]  # the fixture, used by name


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (sqlite3.DatabaseError("database disk image is malformed"), "memidx ingest"),
        (MemidxError("the chunks cannot be stored", "check the index"), "check the index"),
        (FileNotFoundError(2, "No such file or directory", "notes/haystack/x"), "memidx sync"),
    ],
    ids=["damage", "memidx-error", "os-error"],
)
def test_a_turn_appended_then_refused_by_the_index_for_any_reason_says_where_it_is_kept(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch, error: Exception, said: str
) -> None:
    """Only a busy or unavailable index said "filed in <segment>@<offset> but not indexed";
    any other error after the append said nothing of the record (damage: "the index is
    unusable"; an OSError: a traceback), so the agent filed it again or believed it lost."""

    def refuse(*args: object, **kwargs: object) -> bool:
        raise error

    monkeypatch.setattr("memidx.haystack.indexing.index_record", refuse)
    stdin_of(monkeypatch, '{"text": "a turn the index refused", "session": "s-1"}')
    failed = indexed.memidx("file-turn")
    monkeypatch.undo()
    stdin_of(monkeypatch, '{"text": "a turn the index refused", "session": "s-1"}')
    again = indexed.memidx("file-turn", "--json")

    assert failed.code == 1, failed
    assert failed.err.count("\n") == 1 and "Traceback" not in failed.err, failed.err
    assert failed.err.startswith("memidx: error: the record was filed in notes/haystack/")
    assert "but not indexed" in failed.err and "it is not lost" in failed.err, failed.err
    assert said in failed.err, failed.err
    assert again.code == 0 and again.json()["duplicate"] is True, again
