"""A memidx hook the person wrapped, whose memidx no longer exists (its clone moved or
deleted), runs this memidx after the next install, the wrapper's text kept as they wrote it:
install kept the wrapped command whole, so every event still failed on the missing path.
Status names the missing path for a wrapped hook too, and install says what it changed."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from memidx.agents import cursor_install
from memidx.agents.entries import command_hooks, hooks_file, hooks_state, marker
from memidx.agents.install import ConfigFile, carry_out, describe, memidx_argv, plan, states

MARK = marker("claude-code")
WRAPPER = 'MEMIDX_ROOT="/srv/my memory" timeout -k 1 5'


def settings_with(path: Path, command: str) -> dict[str, object]:
    hook = {"type": "command", "command": command, "timeout": 30, "async": True}
    doc: dict[str, object] = {"hooks": {"Stop": [{"matcher": "", "hooks": [hook]}]}}
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return doc


def test_install_points_a_wrapped_hook_at_a_memidx_gone_at_this_one(tmp_path: Path) -> None:
    gone = tmp_path / "old clone" / ".venv" / "bin" / "memidx"
    settings = tmp_path / "settings.json"
    settings_with(settings, f"{WRAPPER} {shlex.quote(str(gone))} agent hook claude-code Stop")
    hooks = command_hooks("claude-code", {"Stop": (30, 10.0)})
    one = hooks_file(settings, "claude-code", hooks)

    said = hooks_state(json.loads(settings.read_text()), MARK)
    change = plan(one, remove=False)

    assert said == [
        f"hooks: Stop (they run {gone}, which no longer exists: run `memidx agent install` "
        "again from your memory's clone)"
    ]
    written = json.loads(change.text or "")["hooks"]["Stop"][0]["hooks"]
    fresh = shlex.join([*memidx_argv(), "agent", "hook", "claude-code", "Stop"])
    assert written == [{"type": "command", "command": f"{WRAPPER} {fresh}", "timeout": 30,
                        "async": True}]  # fmt: skip
    now = memidx_argv()[0]
    assert change.notes == (
        f"hooks you wrapped ran {gone}, which no longer exists: they run {now} now, in your"
        " wrapper",
    )
    assert describe([carry_out(change, dry_run=True)], remove=False, dry_run=True) == [
        f"would install into {settings}",
        f"  {change.notes[0]}",
    ]
    settings.write_text(change.text or "")
    assert plan(one, remove=False).changed is False  # installing again changes nothing


def test_a_wrapped_hook_whose_memidx_is_there_stays_as_it_is(tmp_path: Path) -> None:
    other = tmp_path / "other clone" / "memidx"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\n")
    settings = tmp_path / "settings.json"
    settings_with(settings, f"nice -n 5 {shlex.quote(str(other))} agent hook claude-code Stop")
    one = hooks_file(settings, "claude-code", command_hooks("claude-code", {"Stop": (30, 10.0)}))

    assert plan(one, remove=False).changed is False


def cursor_hooks_running(gone: Path, tmp_path: Path) -> ConfigFile:
    """The user's Cursor hooks.json as memidx installs it, its afterAgentResponse hook run by
    `gone` (a memidx since deleted) in the person's `nice -n 5`."""
    hooks = cursor_install.config_files("user", tmp_path)[0]
    assert isinstance(hooks, ConfigFile)
    doc = json.loads(json.dumps(hooks.install({})))
    entry = doc["hooks"]["afterAgentResponse"][0]
    entry["command"] = f"nice -n 5 {gone} agent hook cursor afterAgentResponse"
    hooks.path.parent.mkdir(parents=True)
    hooks.path.write_text(json.dumps(doc))
    return hooks


def test_cursor_install_points_a_wrapped_hook_at_a_memidx_gone_at_this_one(tmp_path: Path) -> None:
    gone = tmp_path / "gone" / "memidx"
    hooks = cursor_hooks_running(gone, tmp_path)

    change = plan(hooks, remove=False)

    fresh = shlex.join([*memidx_argv(), "agent", "hook", "cursor", "afterAgentResponse"])
    assert (
        json.loads(change.text or "")["hooks"]["afterAgentResponse"][0]["command"]
        == f"nice -n 5 {fresh}"
    )
    assert len(change.notes) == 1 and str(gone) in change.notes[0]


def test_cursor_status_says_its_hooks_run_a_memidx_gone(tmp_path: Path) -> None:
    """Claude Code's status said so; Cursor's listed the hooks as if they ran."""
    gone = tmp_path / "gone" / "memidx"
    hooks = cursor_hooks_running(gone, tmp_path)

    (state,) = states([hooks])

    assert any(f"they run {gone}, which no longer exists" in line for line in state.installed)
