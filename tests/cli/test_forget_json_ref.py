"""`forget --json` names the record as the person named it (`ref`) and by its id (`id`): its
`ref` was the record's id even when the person gave `<segment>@<offset>`, so a script could
not match the answer to what it asked, and nothing named the id beside a note's null."""

from __future__ import annotations

import json

import pytest

from tests.helpers import NotesRepo


def filed(repo: NotesRepo, text: str) -> tuple[str, str]:
    """A record filed in-process (a set-up): its id and its `<segment>@<offset>`."""
    run = repo.memidx("file-turn", "--json", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err
    return run.json()["id"], run.json()["ref"]


@pytest.mark.parametrize("by", ["ref", "ref:line", "id"])
def test_forget_json_gives_the_ref_as_named_and_the_record_id(repo: NotesRepo, by: str) -> None:
    record_id, ref = filed(repo, "zebra stripes turn, forget me")
    given = {"ref": ref, "ref:line": f"{ref}:1", "id": record_id}[by]

    run = repo.memidx_process("forget", "--json", given)
    again = repo.memidx_process("forget", "--json", given)

    assert run.code == 0, run.err
    assert run.json()["kind"] == "record"
    assert run.json()["ref"] == given.removesuffix(":1")
    assert run.json()["id"] == record_id
    assert again.code == 0 and again.json()["already"] is True, again.err
    assert again.json()["ref"] == given.removesuffix(":1") and again.json()["id"] == record_id


def test_forget_json_of_a_note_has_no_id(repo: NotesRepo) -> None:
    gone = repo.note("gone.md", "Zebra stripes", "zebra docker stripes")
    repo.commit("a note")
    assert repo.memidx("ingest").code == 0

    run = repo.memidx_process("forget", "--json", gone)

    assert run.code == 0, run.err
    assert run.json()["ref"] == gone and run.json()["id"] is None
