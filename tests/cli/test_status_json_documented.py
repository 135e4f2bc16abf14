"""`memidx status --json` is documented field by field: its README list names every field
the real command prints (a new user found `kinds`, `segments_vanished`, `behind_head`,
`hook_failure`, `index.bytes`, `indexed_commit` and eleven more named nowhere)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import cast

from tests.helpers import NotesRepo

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
START = "- `memidx status --json` (schema `memidx.status/1`), every field"


def fields_list() -> str:
    """The README's list of memidx.status/1's fields."""
    start = README.index(START)
    return README[start : README.index("The fields not explained here are above.", start)]


def status_section() -> str:
    """The README's words on status, to its list of fields, whose fields `vectors` and others
    are explained above it."""
    start = README.index("## Index maintenance")
    return README[start : README.index("The fields not explained here are above.", start)]


def named(field: str, text: str) -> bool:
    return re.search(rf'[`"]{re.escape(field)}[`"]', text) is not None


def test_every_field_of_status_json_is_in_the_readme(repo: NotesRepo) -> None:
    """Every field at every depth, in the status list itself, with the fields that are `null`
    or `[]` in a quiet memory filled (a hook's failure, a note not committed): those of
    `agent_hook_failure` or `uncommitted` were read only when they held an object."""
    repo.note("wsl.md", "WSL eats all the RAM", "Cap vmmem with memory=4GB in .wslconfig.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.note("new.md", "A note not committed", "Written by hand and not committed yet.")
    assert repo.memidx_process("agent", "hook", stdin="{}").code == 0  # fails open: recorded

    data: dict[str, object] = repo.memidx_process("status", "--json").json()

    assert data["agent_hook_failure"] and data["uncommitted"], data
    listed = fields_list()
    assert [key for key in data if not named(key, listed)] == []
    by_data = ("kinds", "segments_vanished")  # their keys are kinds and segments, not fields
    fields = keys({key: value for key, value in data.items() if key not in by_data})
    assert sorted(one for one in fields if not named(one, status_section())) == []


_FROM = README.index("Every `--json` output carries its `schema`")
SCHEMAS = README[_FROM : README.index("## Promises, and the tests that check them", _FROM)]


def keys(data: object) -> set[str]:
    """Every key of every object in `data`, at any depth."""
    if isinstance(data, dict):
        found = {str(key) for key in cast(dict[object, object], data)}
        return found.union(*(keys(value) for value in cast(dict[object, object], data).values()))
    if isinstance(data, list):
        return set[str]().union(*(keys(value) for value in cast(list[object], data)))
    return set()


def passage(schema: str) -> str:
    """The README's words on one schema: from its name to the next schema named after its
    own parenthesis (`memidx.sync/1`, `memidx.reconcile/1`, `memidx.ingest/1` share one)."""
    start = SCHEMAS.index(f"`{schema}`")
    return SCHEMAS[start : SCHEMAS.index("`memidx.", SCHEMAS.index("(", start))]


def test_every_field_of_hooks_agents_ingest_and_reconcile_json_is_in_the_readme(
    repo: NotesRepo,
) -> None:
    """memidx.hooks/1 (`stage`, `chains`), memidx.agents/1 (`scope`) and the `records` of
    ingest, sync and reconcile (`segments`, `scanned`, `indexed`) were named nowhere. Each is
    looked for in its own schema's words: a field named for another schema (`backup`,
    `renamed`, `path`) passed as documented for all of them."""
    repo.note("wsl.md", "WSL eats all the RAM", "Cap vmmem with memory=4GB in .wslconfig.")
    repo.commit()

    outputs = [
        repo.memidx_process(*argv).json()
        for argv in (["ingest", "--json"], ["sync", "--json"], ["reconcile", "--json"],
                     ["hooks", "status", "--json"], ["agent", "status", "--json"])
    ]  # fmt: skip

    unnamed = {
        str(data["schema"]): sorted(
            one for one in keys(data) - {"schema"} if not named(one, passage(str(data["schema"])))
        )
        for data in outputs
    }
    assert unnamed == {str(data["schema"]): [] for data in outputs}
