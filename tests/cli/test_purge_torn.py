"""A crash inside a filing leaves the first bytes of the turn's frame; the next filing moves
them into `.memidx/torn/`, and the hook files the turn again under a new id. Forgetting that
turn and purging must take the torn copy of its text too (README, "Forget and purge")."""

from __future__ import annotations

import json

from memidx.haystack.frames import frame, new_record
from tests.helpers import NotesRepo

SECRET = "the staging database password is walrus-7781-tangerine"


def test_purge_blanks_the_torn_copy_of_a_forgotten_turn(repo: NotesRepo) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    filed = repo.memidx_process(
        "file-turn", "--json", stdin=json.dumps({"text": "an earlier turn"})
    )
    assert filed.code == 0, filed.err
    (segment,) = (repo.root / "notes" / "haystack").glob("*/*.krd")
    cut = frame(new_record("turn", SECRET))  # the filing a crash cut, 20 bytes short
    segment.write_bytes(segment.read_bytes() + cut[:-20])
    again = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": SECRET}))
    assert again.code == 0, again.err
    (torn,) = (repo.root / ".memidx" / "torn").glob("*.torn")
    assert SECRET.encode() in torn.read_bytes()  # moved aside, as the README says
    assert repo.memidx_process("forget", again.json()["id"]).code == 0

    purged = repo.memidx_process("haystack", "purge", "--json")

    assert purged.code == 0, purged.err
    assert purged.json()["torn"] == 1
    assert SECRET.encode() not in torn.read_bytes()
    assert len(torn.read_bytes()) == len(cut) - 20
    assert SECRET.encode() not in segment.read_bytes()
    again = repo.memidx_process("haystack", "purge")
    assert again.code == 0 and "torn" not in again.out  # nothing left to blank
