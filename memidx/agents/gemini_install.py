"""Where Gemini CLI's hooks and MCP servers live: `hooks` and `mcpServers` in
`.gemini/settings.json` (project) or `~/.gemini/settings.json` (user), one JSON file.
`GEMINI_CLI_HOME` stands in for the user's home, as it does for Gemini CLI 0.61.0 (its
`homedir()`): the user's file is then `$GEMINI_CLI_HOME/.gemini/settings.json`."""

from __future__ import annotations

import os
import re
from pathlib import Path

from memidx.agents.entries import (
    combined,
    command_hooks,
    hooks_file,
    mcp_entry,
    mcp_file,
    scripted,
    unexpanded,
)
from memidx.agents.gemini import EVENTS, NAME
from memidx.agents.hooks_off import Switch, json_switch
from memidx.agents.install import ConfigFile, project_root, user_folder

HOME = "GEMINI_CLI_HOME"
# Gemini CLI 0.61.0 replaces `$NAME`, `${NAME}` and `${NAME:-default}` in every string of its
# settings with the environment's values as it loads them (resolveEnvVarsInString), before a
# hook's command reaches `bash -c`, and has no escape for a `$`.
_VARIABLE = re.compile(r"\$(?=[A-Za-z0-9_{])")


def user_home() -> Path:
    """The folder whose `.gemini/` holds the user's settings, as Gemini CLI finds it."""
    return user_folder(HOME, "")


def config_files(scope: str, cwd: Path) -> list[ConfigFile]:
    project = scope == "project"
    folder = project_root(cwd) if project else user_home()
    path = folder / ".gemini" / "settings.json"
    hooks = {
        event: {
            "name": f"memidx-{event}",
            **entry,
            "command": unexpanded(str(entry["command"]), _VARIABLE),
        }
        for event, entry in command_hooks(NAME, EVENTS, portable=project).items()
    }
    # no `$` can be kept from Gemini CLI in an argv, so the command goes in a script, as a
    # hook's does: the clone's memidx (its path holds a `$`), or the portable resolver,
    # whose "$HOME" Gemini CLI replaced with HOME's value before sh parsed it (a backquote
    # in it ran as a command, a `"` or a `$` changed the path)
    server = scripted({**mcp_entry(portable=project), "timeout": 30_000}, _VARIABLE)
    return [combined(hooks_file(path, NAME, hooks), mcp_file(path, NAME, server))]


def hooks_switches(cwd: Path) -> list[Switch]:
    """Where Gemini CLI 0.61.0 reads `hooksConfig.enabled` ("When disabled, no hooks will be
    executed"), highest precedence first: the system's settings, the project's, the user's,
    the system's defaults (each system file where its variable moves it)."""
    system = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json"
    defaults = os.environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or (
        "/etc/gemini-cli/system-defaults.json"
    )
    project = project_root(cwd) / ".gemini" / "settings.json"
    files = (Path(system), project, user_home() / ".gemini" / "settings.json", Path(defaults))
    return [json_switch(path, ["hooksConfig", "enabled"], False) for path in files]
