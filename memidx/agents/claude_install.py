"""Where Claude Code's settings and MCP servers live, and memidx's entries in them.

Hooks go to `.claude/settings.json` (project) or `~/.claude/settings.json` (user); the MCP
server to `.mcp.json` (project) or `~/.claude.json` (user). A project's server is approved
through `enabledMcpjsonServers` in `.claude/settings.local.json`, the person's own settings:
Claude Code (2.1.197) leaves it "pending approval" when the approval is in the shared
`.claude/settings.json`. `CLAUDE_CONFIG_DIR` moves the user's files."""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import cast

from memidx.agents.claude_code import EVENTS, NAME
from memidx.agents.claude_policy import POLICY_WHY, policy_switch
from memidx.agents.entries import (
    SERVER,
    command_hooks,
    hooks_file,
    mcp_entry,
    mcp_file,
    scripted,
)
from memidx.agents.hooks_off import Switch, json_switch
from memidx.agents.install import ConfigFile, project_root, user_folder
from memidx.agents.settings import Json, add_to_list, remove_from_list
from memidx.frozen import replace
from memidx.locations import home_folder

CONFIG_DIR = "CLAUDE_CONFIG_DIR"
# Claude Code replaces `${NAME}` and `${NAME:-default}` in an MCP server's command, args, env,
# url and headers (`.mcp.json` and `~/.claude.json`) with the environment's values, with no
# escape for a `$` (a bare `$NAME` stays as it is): a clone at `/home/me/${X}/memidx` would
# start a memidx that is not there, or another one.
_VARIABLE = re.compile(r"\$(?=\{)")


def _approve(doc: Json) -> Json:
    return add_to_list(doc, "enabledMcpjsonServers", SERVER)


def _unapprove(doc: Json) -> Json:
    return remove_from_list(doc, "enabledMcpjsonServers", SERVER)


def _approval_state(doc: Json) -> list[str]:
    servers = doc.get("enabledMcpjsonServers")
    approved = isinstance(servers, list) and SERVER in cast(list[object], servers)
    return [f"MCP server {SERVER} approved"] if approved else []


def user_dir() -> Path:
    return user_folder(CONFIG_DIR, ".claude")


def config_files(scope: str, cwd: Path) -> list[ConfigFile]:
    """The files an install of `scope` edits."""
    project = scope == "project"
    if project:
        root = project_root(cwd)
        settings, mcp = root / ".claude" / "settings.json", root / ".mcp.json"
    else:
        settings = user_dir() / "settings.json"
        configured = os.environ.get(CONFIG_DIR)
        mcp = user_dir() / ".claude.json" if configured else home_folder() / ".claude.json"
    files = [
        hooks_file(settings, NAME, command_hooks(NAME, EVENTS, portable=project)),
        mcp_file(mcp, NAME, scripted({"type": "stdio", **mcp_entry(portable=project)}, _VARIABLE)),
    ]
    if project:
        local = settings.with_name("settings.local.json")
        files.append(ConfigFile(local, _approve, _unapprove, _approval_state))
    return [replace(one, bom=True) for one in files]  # Claude Code reads past a byte-order mark


def hooks_switches(cwd: Path) -> list[Switch]:
    """Where Claude Code reads `disableAllHooks` (2.1.197 then runs no hooks but managed
    ones), highest precedence first: the machine's policy (memidx/agents/claude_policy.py:
    status said memidx's hooks ran where it switched them off), the project's own settings,
    its shared ones, the user's."""
    project = project_root(cwd) / ".claude"
    files = (
        project / "settings.local.json",
        project / "settings.json",
        user_dir() / "settings.json",
    )
    policy = policy_switch()
    return [
        *([policy] if policy else []),
        *(json_switch(p, ["disableAllHooks"], True) for p in files),
    ]


def install_warnings(_cwd: Path, _planned: Collection[Path] = ()) -> list[str]:
    """What install says besides: that the machine's policy runs none of memidx's hooks."""
    policy = policy_switch()
    if policy is None or not policy.read(""):  # no say, or the policy lets hooks run
        return []
    return [
        f"Claude Code runs none of memidx's hooks on this machine: its policy, {policy.path},"
        f" says so ({policy.why.removeprefix(POLICY_WHY)}); they do nothing until an"
        " administrator changes that (memidx never writes it)"
    ]
