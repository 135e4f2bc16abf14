"""Where Gemini CLI's hooks and MCP servers live: `hooks` and `mcpServers` in
`.gemini/settings.json` (project) or `~/.gemini/settings.json` (user), one JSON file.
`GEMINI_CLI_HOME` stands in for the user's home, as it does for Gemini CLI 0.61.0 (its
`homedir()`): the user's file is then `$GEMINI_CLI_HOME/.gemini/settings.json`."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Collection
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
from memidx.agents.gemini_trust import distrust_switch, trusted_folders, untrusted_warning
from memidx.agents.hooks_off import Switch, json_strings, json_switch, switched_off
from memidx.agents.install import ConfigFile, project_root, user_folder
from memidx.frozen import replace

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
            "name": f"memidx-{event}",  # skipped_hooks() knows them by it
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


def _system_settings() -> Path:
    """The system's settings file, where Gemini CLI 0.61.0 looks for it."""
    moved = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
    if moved:
        return Path(moved)
    if sys.platform == "darwin":
        return Path("/Library/Application Support/GeminiCli/settings.json")
    return Path("/etc/gemini-cli/settings.json")


def _system_defaults() -> Path:
    """The system's defaults, beside its settings unless moved (they were read from /etc
    whatever GEMINI_CLI_SYSTEM_SETTINGS_PATH said, and on macOS too)."""
    moved = os.environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
    return Path(moved) if moved else _system_settings().with_name("system-defaults.json")


def hooks_switches(cwd: Path) -> list[Switch]:
    """Where Gemini CLI 0.61.0 reads whether memidx's hooks run in the project at `cwd`,
    highest precedence first: the person's distrust of the folder (gemini_trust), then
    `hooksConfig.enabled` ("When disabled, no hooks will be executed") in the system's
    settings, the project's, the user's and the system's defaults (the system's files where
    their variables move them)."""
    system, project, user, defaults = _settings_files(cwd)
    trust = distrust_switch(
        trusted_folders(user_home()), project_root(cwd), [system, user, defaults]
    )
    # the system's files are an administrator's, as a rule: install told the person to set
    # `enabled` to true in them or remove it, where their own settings alone can outrank it
    below = f"{_ENABLED}: set it to true in {user}, which outranks that file"
    return [
        trust,
        replace(_switch(system), remedy="", why=f"{SYSTEM_WHY}{_ENABLED}"),
        _switch(project),
        _switch(user),
        replace(_switch(defaults), remedy=below),
    ]


_ENABLED = "`hooksConfig.enabled` is false there"
SYSTEM_WHY = "the system's settings, which outrank every other: "  # what status adds


def _switch(path: Path) -> Switch:
    return json_switch(path, ["hooksConfig", "enabled"], False, comments=True)


def _settings_files(cwd: Path) -> tuple[Path, Path, Path, Path]:
    """Gemini CLI's settings files, highest precedence first: the system's, the project's,
    the user's, the system's defaults."""
    return (
        _system_settings(),
        project_root(cwd) / ".gemini" / "settings.json",
        user_home() / ".gemini" / "settings.json",
        _system_defaults(),
    )


def skipped_hooks(cwd: Path) -> list[tuple[str, Path]]:
    """memidx's hooks Gemini CLI skips by name (`hooksConfig.disabled`, which `/hooks
    disable` writes; the lists of every settings file add up), each with the first file
    that names it, in the order of memidx's events."""
    named: dict[str, Path] = {}
    for path in _settings_files(cwd):
        for name in json_strings(path, ["hooksConfig", "disabled"], comments=True):
            named.setdefault(name, path)
    ours = (f"memidx-{event}" for event in EVENTS)  # the `name` of each of memidx's hooks
    return [(name, named[name]) for name in ours if name in named]


def install_warnings(cwd: Path, _planned: Collection[Path] = ()) -> list[str]:
    """What install says besides: that Gemini CLI does not trust the project's folder."""
    system, _, user, defaults = _settings_files(cwd)
    said = untrusted_warning(user_home(), project_root(cwd), [system, user, defaults])
    return [one for one in (said, _system_warning(system)) if one]


def _system_warning(system: Path) -> str | None:
    """What install says when the system's settings switch every hook off: an administrator's
    file as a rule (it told the person to set it to true or remove it, as if their own)."""
    if switched_off([_switch(system)], system) is None:
        return None
    return (
        f"Gemini CLI runs none of memidx's hooks on this machine: its system settings, {system},"
        f" switch them off ({_ENABLED}, which outranks every other settings file); they do"
        " nothing until an administrator changes that (memidx never writes it)"
    )
