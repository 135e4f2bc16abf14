"""memidx's MCP server entry after an upgrade that drops a key from it or changes a value:
install takes away what an earlier memidx wrote there (memidx/agents/entries.py
EARLIER_MCP_VALUES), keeps what the person added or changed, and uninstall calls only the
person's theirs. Pure edits of the loaded documents: each test costs milliseconds."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from memidx.agents import entries
from memidx.agents.install import ConfigFile
from memidx.agents.settings import Json

PATH = Path("/nonexistent/settings.json")
ARGV = {"command": "/clone/.venv/bin/memidx", "args": ["mcp"]}


def server(doc: Json) -> Json:
    return cast(dict[str, Json], doc["mcpServers"])["memidx"]


def released(entry: dict[str, object]) -> ConfigFile:
    return entries.mcp_file(PATH, "gemini", entry)


def test_a_key_an_earlier_memidx_wrote_and_this_one_drops_goes_without_a_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the record of it, the old `"timeout": 30000` stayed for ever, as if the
    person had set it, and uninstall said `with your changes to the MCP server's timeout`."""
    before = released({**ARGV, "timeout": 30_000}).install({})
    monkeypatch.setitem(entries.EARLIER_MCP_VALUES, "gemini", {"timeout": (30_000,)})
    upgraded = released(dict(ARGV))

    assert server(upgraded.install(before)) == ARGV
    assert upgraded.edited is not None and upgraded.edited(before) == []


@pytest.mark.parametrize(("theirs", "after"), [(None, 60_000), (90_000, 90_000)])
def test_an_upgrade_changes_memidx_value_and_keeps_the_persons(
    monkeypatch: pytest.MonkeyPatch, theirs: int | None, after: int
) -> None:
    before = released({**ARGV, "timeout": 30_000}).install({})
    if theirs is not None:
        server(before)["timeout"] = theirs
    monkeypatch.setitem(entries.EARLIER_MCP_VALUES, "gemini", {"timeout": (30_000,)})
    upgraded = released({**ARGV, "timeout": 60_000})

    assert server(upgraded.install(before))["timeout"] == after
    said = ["the MCP server's timeout"] if theirs is not None else []
    assert upgraded.edited is not None and upgraded.edited(before) == said


def test_a_key_the_person_added_or_changed_stays_and_is_said() -> None:
    """A timeout the person raised was put back to memidx's at every install, without a
    word; uninstall did not name it either."""
    one = released({**ARGV, "timeout": 30_000})
    before = one.install({})
    server(before).update(timeout=90_000, trust=True)

    again = one.install(before)

    assert server(again) == {**ARGV, "timeout": 90_000, "trust": True}
    assert list(server(again)) == ["command", "args", "timeout", "trust"]  # its order kept
    assert one.edited is not None and one.edited(before) == ["the MCP server's timeout, trust"]
