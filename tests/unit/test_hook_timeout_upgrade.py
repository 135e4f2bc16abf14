"""memidx's hooks after an upgrade that changes a hook's timeout: install puts the new one in
place of the one an earlier memidx wrote (memidx/agents/entries.py EARLIER_TIMEOUTS), keeps
one the person set, and uninstall calls only the person's theirs (Cursor's hooks.json too,
which said nothing of them). Pure edits of the loaded documents: each test costs
milliseconds."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from memidx.agents import entries
from memidx.agents.claude_code import EVENTS as CLAUDE_EVENTS
from memidx.agents.claude_install import config_files as claude_files
from memidx.agents.cursor import EVENTS as CURSOR_EVENTS
from memidx.agents.cursor_install import config_files as cursor_files
from memidx.agents.install import ConfigFile
from memidx.agents.settings import Json


def stop_timeout(doc: Json) -> object:
    groups = cast(dict[str, list[dict[str, list[Json]]]], doc["hooks"])["Stop"]
    return groups[0]["hooks"][0]["timeout"]


def settings_json() -> ConfigFile:
    found = claude_files("user", Path("/nonexistent"))[0]
    assert isinstance(found, ConfigFile)
    return found


def upgrade(monkeypatch: pytest.MonkeyPatch) -> None:
    """As a release that moves Claude Code's Stop hook's timeout from 30 s to 45 s records it."""
    monkeypatch.setitem(CLAUDE_EVENTS, "Stop", (45, 10.0))
    monkeypatch.setitem(entries.EARLIER_TIMEOUTS, "claude-code", {"Stop": frozenset({30})})


@pytest.mark.parametrize(("theirs", "after"), [(None, 45), (90, 90)])
def test_an_upgrade_changes_memidx_timeout_and_keeps_the_persons(
    monkeypatch: pytest.MonkeyPatch, theirs: int | None, after: int
) -> None:
    """replaced() kept every timeout it found: the new default never applied, and uninstall
    then said `with your changes to the Stop hook's timeout` of memidx's own."""
    before = settings_json().install({})
    assert stop_timeout(before) == 30
    if theirs is not None:
        hooks = cast(dict[str, list[dict[str, list[Json]]]], before["hooks"])
        hooks["Stop"][0]["hooks"][0]["timeout"] = theirs
    upgrade(monkeypatch)
    upgraded = settings_json()

    assert stop_timeout(upgraded.install(before)) == after
    assert upgraded.edited is not None
    said = ["the Stop hook's timeout"] if theirs is not None else []
    assert upgraded.edited(before) == said


def test_an_upgrade_changes_memidx_timeout_in_cursor_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = cursor_files("user", Path("/nonexistent"))[0]
    assert isinstance(hooks, ConfigFile)
    before = hooks.install({})
    monkeypatch.setitem(CURSOR_EVENTS, "afterAgentResponse", (45, 10.0))
    monkeypatch.setitem(entries.EARLIER_TIMEOUTS, "cursor", {"afterAgentResponse": frozenset({30})})

    upgraded = cursor_files("user", Path("/nonexistent"))[0]
    assert isinstance(upgraded, ConfigFile)
    after = upgraded.install(before)

    listed = cast(dict[str, list[Json]], after["hooks"])["afterAgentResponse"]
    assert [entry["timeout"] for entry in listed] == [45]


def test_cursor_uninstall_names_the_hooks_the_person_changed() -> None:
    """Cursor's hooks.json had no such note: a hook pointed at the team's memory
    (`MEMIDX_ROOT=/srv/team <...>/memidx agent hook cursor ...`) went without a word."""
    hooks = cursor_files("user", Path("/nonexistent"))[0]
    assert isinstance(hooks, ConfigFile) and hooks.edited is not None
    doc = hooks.install({})
    assert hooks.edited(doc) == []
    entry = cast(dict[str, list[Json]], doc["hooks"])["afterAgentResponse"][0]
    entry.update(command=f"MEMIDX_ROOT=/srv/team {entry['command']}", timeout=90)

    assert hooks.edited(doc) == ["the afterAgentResponse hook's command, timeout"]
