"""memidx's entries in agents' JSON configuration files, in the forms several agents share: a
`hooks` table of command hooks in Claude Code's shape (Codex CLI and Gemini CLI take it too),
the MCP server under `mcpServers`, and what `memidx agent status` says of each."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import cast

from memidx.agents.install import ConfigFile, memidx_argv, shell_command
from memidx.agents.settings import (
    HookEntry,
    Json,
    drop_entry,
    get_entry,
    hook_commands,
    hooked_events,
    merge_hooks,
    remove_hooks,
    set_entry,
)
from memidx.errors import MemidxError

SERVER = "memidx"  # the MCP server's name in every agent's configuration


def marker(agent: str) -> str:
    """What the command of each of memidx's hooks for `agent` carries (uninstall finds them)."""
    return f"agent hook {agent}"


def hook_command(agent: str, event: str) -> str:
    return shell_command("agent", "hook", agent, event)


def command_hooks(agent: str, events: Mapping[str, tuple[int, float]]) -> dict[str, HookEntry]:
    """memidx's command hook for each event, with the agent's timeout for it (events map to
    (the agent's timeout, memidx's own deadline), as each adapter's EVENTS do)."""
    return {
        event: {"type": "command", "command": hook_command(agent, event), "timeout": timeout}
        for event, (timeout, _) in events.items()
    }


def mcp_argv() -> list[str]:
    """The command line that starts memidx's MCP server."""
    return [*memidx_argv(), "mcp"]


def mcp_entry() -> dict[str, object]:
    """The MCP server as `mcpServers` entries name it: its command and its arguments."""
    argv = mcp_argv()
    return {"command": argv[0], "args": argv[1:]}


def hooks_file(path: Path, agent: str, hooks: dict[str, HookEntry]) -> ConfigFile:
    """A JSON file whose `hooks` table gets memidx's hook for each event."""
    mark = marker(agent)
    return ConfigFile(
        path,
        lambda doc: merge_hooks(doc, hooks, mark),
        lambda doc: remove_hooks(doc, mark),
        lambda doc: hooks_state(doc, mark),
    )


def hooks_state(doc: Json, mark: str) -> list[str]:
    events = hooked_events(doc, mark)
    if not events:
        return []
    return [f"hooks: {', '.join(events)}" + gone(hook_commands(doc, mark))]


def gone(commands: list[str]) -> str:
    """What to say when memidx's entries run a memidx that is no longer there (its clone was
    moved or deleted): the agent's every call of them fails."""
    import shlex

    for command in commands:
        try:
            program = shlex.split(command)[0]
        except (ValueError, IndexError):
            continue
        if Path(program).is_absolute() and not Path(program).exists():
            return (
                f" (they run {program}, which no longer exists: run `memidx agent install` "
                "again from your memory's clone)"
            )
    return ""


def mcp_file(path: Path, entry: dict[str, object]) -> ConfigFile:
    """A JSON file whose `mcpServers` table gets memidx's MCP server as `entry`; a server of
    that name memidx did not write is left alone (install stops, uninstall keeps it)."""

    def install(doc: Json) -> Json:
        found = get_entry(doc, ["mcpServers", SERVER])
        if found is not None and not is_our_server(found):
            raise MemidxError(
                f"{path} already has an MCP server {SERVER!r} that memidx did not add",
                "rename or remove it, then install again: memidx left every file alone",
            )
        kept = cast(dict[str, object], found) if isinstance(found, dict) else {}
        return set_entry(doc, ["mcpServers", SERVER], {**kept, **entry})  # the person's env stays

    def uninstall(doc: Json) -> Json:
        found = get_entry(doc, ["mcpServers", SERVER])
        return drop_entry(doc, ["mcpServers", SERVER]) if is_our_server(found) else doc

    return ConfigFile(path, install, uninstall, mcp_state)


def is_our_server(entry: object) -> bool:
    """Whether an `mcpServers` entry is one a memidx wrote (this one or another clone's):
    `<...>/memidx mcp` or `<python> -m memidx mcp`."""
    if not isinstance(entry, dict):
        return False
    found = cast(dict[str, object], entry)
    command, args = found.get("command"), found.get("args")
    argv = [command, *cast(list[object], args)] if isinstance(args, list) else [command]
    if not all(isinstance(a, str) for a in argv) or argv[-1] != "mcp":
        return False
    head = cast(list[str], argv[:-1])
    return (len(head) == 1 and PurePath(head[0]).stem == "memidx") or head[1:] == ["-m", "memidx"]


def mcp_state(doc: Json) -> list[str]:
    entry = get_entry(doc, ["mcpServers", SERVER])
    if entry is None:
        return []
    if not is_our_server(entry):
        return [f"MCP server {SERVER} (not memidx's)"]
    command = cast(dict[str, object], entry).get("command")
    return [f"MCP server {SERVER}" + gone([command] if isinstance(command, str) else [])]


def combined(*parts: ConfigFile) -> ConfigFile:
    """One file that holds several of memidx's entries (Gemini CLI's settings.json holds the
    hooks and the MCP server): each part's edits in turn, what each part says in turn."""

    def install(doc: Json) -> Json:
        for part in parts:
            doc = part.install(doc)
        return doc

    def uninstall(doc: Json) -> Json:
        for part in parts:
            doc = part.uninstall(doc)
        return doc

    def installed(doc: Json) -> list[str]:
        return [said for part in parts for said in part.installed(doc)]

    return ConfigFile(parts[0].path, install, uninstall, installed)
