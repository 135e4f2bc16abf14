"""Where Claude Code's settings and MCP servers live, and memidx's entries in them.

Hooks go to `.claude/settings.json` (project) or `~/.claude/settings.json` (user); the MCP
server to `.mcp.json` (project) or `~/.claude.json` (user). A project's server is approved
through `enabledMcpjsonServers` in `.claude/settings.local.json`, the person's own settings:
Claude Code (2.1.197) leaves it "pending approval" when the approval is in the shared
`.claude/settings.json`. `CLAUDE_CONFIG_DIR` moves the user's files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

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


def _install_settings(doc: Json) -> Json:
    return merge_hooks(doc, hooks(), MARKER)


def _uninstall_settings(doc: Json) -> Json:
    return remove_hooks(doc, MARKER)


def _approve(doc: Json) -> Json:
    return add_to_list(doc, "enabledMcpjsonServers", SERVER)


def _unapprove(doc: Json) -> Json:
    return remove_from_list(doc, "enabledMcpjsonServers", SERVER)


def _approval_state(doc: Json) -> list[str]:
    servers = doc.get("enabledMcpjsonServers")
    approved = isinstance(servers, list) and SERVER in cast(list[object], servers)
    return [f"MCP server {SERVER} approved"] if approved else []


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
    files = [
        ConfigFile(settings, _install_settings, _uninstall_settings, _settings_state),
        ConfigFile(mcp, _install_mcp, _uninstall_mcp, _mcp_state),
    ]
    if project:
        local = settings.with_name("settings.local.json")
        files.append(ConfigFile(local, _approve, _unapprove, _approval_state))
    return files
