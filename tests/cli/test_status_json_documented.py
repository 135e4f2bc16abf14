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
SECTION = README[README.index("## Index maintenance") :][:40_000]


def fields_list() -> str:
    """The README's list of memidx.status/1's fields."""
    start = README.index(START)
    return README[start : README.index("The fields not explained here are above.", start)]


def named(field: str, text: str) -> bool:
    return re.search(rf'[`"]{re.escape(field)}[`"]', text) is not None


def test_every_field_of_status_json_is_in_the_readme(repo: NotesRepo) -> None:
    repo.note("wsl.md", "WSL eats all the RAM", "Cap vmmem with memory=4GB in .wslconfig.")
    repo.commit()
    assert repo.memidx("ingest").code == 0

    data: dict[str, object] = repo.memidx_process("status", "--json").json()

    listed = fields_list()
    assert [key for key in data if not named(key, listed)] == []
    objects = {key: [str(one) for one in cast(dict[str, object], value)]
               for key, value in data.items() if isinstance(value, dict)}  # fmt: skip
    for key in ("memory", "index", "drift"):  # their fields are listed there too
        assert [one for one in objects[key] if not named(one, listed)] == [], key
    nested = [f"{key}.{one}" for key, fields in objects.items() for one in fields
              if not named(one, SECTION)]  # fmt: skip
    assert nested == []


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


def test_every_field_of_hooks_agents_ingest_and_reconcile_json_is_in_the_readme(
    repo: NotesRepo,
) -> None:
    """memidx.hooks/1 (`stage`, `chains`), memidx.agents/1 (`scope`) and the `records` of
    ingest, sync and reconcile (`segments`, `scanned`, `indexed`) were named nowhere."""
    repo.note("wsl.md", "WSL eats all the RAM", "Cap vmmem with memory=4GB in .wslconfig.")
    repo.commit()

    outputs = [
        repo.memidx_process(*argv).json()
        for argv in (["ingest", "--json"], ["sync", "--json"], ["reconcile", "--json"],
                     ["hooks", "status", "--json"], ["agent", "status", "--json"])
    ]  # fmt: skip

    unnamed = {str(data["schema"]): sorted(one for one in keys(data) if not named(one, SCHEMAS))
               for data in outputs}  # fmt: skip
    assert unnamed == {str(data["schema"]): [] for data in outputs}
