"""`forget --json` and `embed --json` are documented field by field: every field the real
command prints is named in the README's words on it (forget's `id` and embed's null
`chunks_per_second` came with a change of each; no test held their words to the output)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.test_status_json_documented import README, keys, named, passage
from tests.helpers import NotesRepo

_FROM = README.index("- JSON: `forget --json` gives")
FORGET = README[_FROM : README.index("\n- ", _FROM + 1)]  # its item, to the next


def test_every_field_of_forget_json_is_in_the_readme(repo: NotesRepo) -> None:
    repo.note("old.md", "An old note", "The build used to run on the old runner.")
    repo.commit()
    filed = repo.memidx("file-turn", stdin='{"text": "the deploy gate is green"}').out.strip()
    assert re.fullmatch(r"[a-z]+-\d+-[0-9a-f]+", filed), filed

    outputs = [
        repo.memidx_process("forget", "--json", ref).json() for ref in ("notes/old.md", filed)
    ]

    assert {one["kind"] for one in outputs} == {"note", "record"}, outputs
    assert sorted(one for one in keys(outputs) if not named(one, FORGET)) == []


def test_every_field_of_embed_json_is_in_the_readme(repo: NotesRepo, models_dir: Path) -> None:
    assert repo.memidx("ingest").code == 0
    data = repo.memidx_process("embed", "--json", MEMIDX_MODELS_DIR=str(models_dir)).json()

    assert data["schema"] == "memidx.embed/1", data
    assert (
        sorted(one for one in keys(data) - {"schema"} if not named(one, passage(data["schema"])))
        == []
    )
    assert re.search(
        r"`chunks_per_second`: null when\s+nothing was embedded", passage(data["schema"])
    )
