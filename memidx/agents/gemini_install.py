"""Where Gemini CLI's hooks and MCP servers live: `hooks` and `mcpServers` in
`.gemini/settings.json` (project) or `~/.gemini/settings.json` (user), one JSON file."""

from __future__ import annotations

from pathlib import Path

from memidx.agents.gemini import EVENTS, NAME
from memidx.agents.install import ConfigFile, memidx_argv, project_root, shell_command
from memidx.agents.settings import (
    Json,
    drop_entry,
    get_entry,
    hooked_events,
    merge_hooks,
    remove_hooks,
    set_entry,
)

MARKER = f"agent hook {NAME}"
SERVER = "memidx"


def hooks() -> dict[str, dict[str, object]]:
    return {
        event: {"name": f"memidx-{event}", "type": "command",
                "command": shell_command("agent", "hook", NAME, event), "timeout": timeout}
        for event, (timeout, _) in EVENTS.items()
    }  # fmt: skip


def mcp_entry() -> dict[str, object]:
    argv = memidx_argv()
    return {"command": argv[0], "args": [*argv[1:], "mcp"], "timeout": 30_000}


def _install(doc: Json) -> Json:
    return set_entry(merge_hooks(doc, hooks(), MARKER), ["mcpServers", SERVER], mcp_entry())


def _uninstall(doc: Json) -> Json:
    return drop_entry(remove_hooks(doc, MARKER), ["mcpServers", SERVER])


def _state(doc: Json) -> list[str]:
    events = hooked_events(doc, MARKER)
    found = [f"hooks: {', '.join(events)}"] if events else []
    if isinstance(get_entry(doc, ["mcpServers", SERVER]), dict):
        found.append(f"MCP server {SERVER}")
    return found


def config_files(scope: str, cwd: Path) -> list[ConfigFile]:
    folder = project_root(cwd) if scope == "project" else Path.home()
    return [ConfigFile(folder / ".gemini" / "settings.json", _install, _uninstall, _state)]
