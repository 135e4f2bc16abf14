"""Where Claude Code's settings and MCP servers live, and memidx's entries in them.

Hooks go to `.claude/settings.json` (project) or `~/.claude/settings.json` (user); the MCP
server to `.mcp.json` (project, approved through `enabledMcpjsonServers` in the project's
settings) or `~/.claude.json` (user). `CLAUDE_CONFIG_DIR` moves the user's files."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from memidx.agents.claude_code import EVENTS, NAME
from memidx.agents.install import ConfigFile, memidx_argv, project_root, shell_command
from memidx.agents.settings import (
    Json,
    add_to_list,
    drop_entry,
    get_entry,
    hooked_events,
    merge_hooks,
    remove_from_list,
    remove_hooks,
    set_entry,
)

MARKER = f"agent hook {NAME}"
SERVER = "memidx"


def hooks() -> dict[str, dict[str, object]]:
    return {
        event: {"type": "command", "command": shell_command("agent", "hook", NAME, event),
                "timeout": timeout}
        for event, (timeout, _) in EVENTS.items()
    }  # fmt: skip


def mcp_entry() -> dict[str, object]:
    argv = memidx_argv()
    return {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"]}


def _install_settings(doc: Json, *, project: bool) -> Json:
    doc = merge_hooks(doc, hooks(), MARKER)
    return add_to_list(doc, "enabledMcpjsonServers", SERVER) if project else doc


def _uninstall_settings(doc: Json, *, project: bool) -> Json:
    doc = remove_hooks(doc, MARKER)
    return remove_from_list(doc, "enabledMcpjsonServers", SERVER) if project else doc


def _settings_state(doc: Json) -> list[str]:
    events = hooked_events(doc, MARKER)
    return [f"hooks: {', '.join(events)}"] if events else []


def _install_mcp(doc: Json) -> Json:
    return set_entry(doc, ["mcpServers", SERVER], mcp_entry())


def _uninstall_mcp(doc: Json) -> Json:
    return drop_entry(doc, ["mcpServers", SERVER])


def _mcp_state(doc: Json) -> list[str]:
    entry = get_entry(doc, ["mcpServers", SERVER])
    return [f"MCP server {SERVER}"] if isinstance(entry, dict) else []


def user_dir() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def config_files(scope: str, cwd: Path) -> list[ConfigFile]:
    """The files an install of `scope` edits."""
    project = scope == "project"
    if project:
        root = project_root(cwd)
        settings, mcp = root / ".claude" / "settings.json", root / ".mcp.json"
    else:
        settings = user_dir() / "settings.json"
        configured = os.environ.get("CLAUDE_CONFIG_DIR")
        mcp = user_dir() / ".claude.json" if configured else Path.home() / ".claude.json"
    return [
        ConfigFile(
            settings,
            partial(_install_settings, project=project),
            partial(_uninstall_settings, project=project),
            _settings_state,
        ),
        ConfigFile(mcp, _install_mcp, _uninstall_mcp, _mcp_state),
    ]
