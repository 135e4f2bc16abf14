"""`memidx memory --json show`: the `--json` given to `memory` before its `show`."""

from __future__ import annotations

import pytest

from tests.helpers import NotesRepo


@pytest.mark.parametrize(
    "argv", [["memory", "--json", "show"], ["memory", "show", "--json"], ["memory", "--json"]]
)
def test_memory_json_prints_json_wherever_the_flag_stands(repo: NotesRepo, argv: list[str]) -> None:
    """`memory --json show` printed the people's text, exit 0: `show`'s own `--json`, not
    given, set it back to false after `memory`'s had set it."""
    run = repo.memidx_process(*argv)

    assert run.json()["schema"] == "memidx.memory/1", run.out
