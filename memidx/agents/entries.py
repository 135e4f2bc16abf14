"""memidx's entries in agents' JSON configuration files, in the forms several agents share: a
`hooks` table of command hooks in Claude Code's shape (Codex CLI and Gemini CLI take it too),
the MCP server under `mcpServers`, and what `memidx agent status` says of each.

A user's own files name this clone's memidx by absolute path; a project's files, which a team
commits, run memidx portably (memidx/agents/launcher.py): `portable=True`."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

from memidx.agents import hook_owner
from memidx.agents.install import ConfigFile, memidx_argv, shell_command
from memidx.agents.launcher import SHELL, parse_launch, portable_argv, portable_command
from memidx.agents.mcp_owner import (
    is_our_server,
    mcp_flags,
    persons_keys,
    server_argv,
    unwrapped,
)
from memidx.agents.settings import (
    HookEntry,
    Json,
    drop_entry,
    edited_hooks,
    get_entry,
    hook_commands,
    hooked_events,
    merge_hooks,
    remove_hooks,
    repointed,
    set_entry,
)
from memidx.errors import MemidxError
from memidx.locations import bin_dir

SERVER = "memidx"  # the MCP server's name in every agent's configuration
# Every event a memidx release has put its hook on, per agent (`git log -p -S '"PreCompact"'
# -- memidx/agents/`, each event in turn; Codex gained PostCompact, nothing was dropped yet):
# install and uninstall take memidx's hooks off these events alone. A memidx hook a person
# added on another event (`memidx agent hook claude-code Notification`) is theirs. An event
# an adapter stops hooking stays listed here, so that install takes the old hook away.
WRITTEN_EVENTS: dict[str, frozenset[str]] = {
    "claude-code": frozenset(
        {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd"}
    ),
    "codex": frozenset({"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact"}),
    "gemini": frozenset({"SessionStart", "BeforeAgent", "AfterAgent", "PreCompress"}),
    "cursor": frozenset({"sessionStart", "beforeSubmitPrompt", "afterAgentResponse", "preCompact"}),
}


# Each timeout an earlier memidx release wrote on its hook for an event (per agent, per event)
# that this release's adapter no longer writes there: none has changed yet. When an adapter's
# EVENTS changes a timeout, add the old one here: install then puts the new one in its place
# (it kept any timeout found, memidx's old one too) and uninstall does not call it the
# person's. Any other timeout on memidx's hook is the person's, and stays.
EARLIER_TIMEOUTS: dict[str, dict[str, frozenset[object]]] = {}


# Each value an earlier memidx release wrote under a key of its MCP server's entry (per
# agent, per key) that this release no longer writes there: a key dropped (all its old
# values), or a value changed (the old one). None has changed yet: Gemini CLI's entry has had
# `"timeout": 30000` since its first release. Install takes these away (or puts this
# release's value in their place) and uninstall does not call them the person's; any other
# key or value on memidx's entry is the person's, and stays (memidx/agents/mcp_owner.py).
EARLIER_MCP_VALUES: dict[str, dict[str, tuple[object, ...]]] = {}


def marker(agent: str) -> str:
    """What the command of each of memidx's hooks for `agent` carries (uninstall finds them)."""
    return f"agent hook {agent}"


def hook_command(agent: str, event: str, *, portable: bool = False) -> str:
    """The command of memidx's hook for `event`; a portable one prints what the agent takes
    for nothing (the adapter's answer when its work fails) when no memidx is there at all."""
    args = ("agent", "hook", agent, event)
    if not portable:
        return shell_command(*args)
    from memidx.agents.runner import adapter

    found = adapter(agent)
    return portable_command(args, found.failed(event) if found.failed else "")


def command_hooks(
    agent: str, events: Mapping[str, tuple[int, float]], *, portable: bool = False
) -> dict[str, HookEntry]:
    """memidx's command hook for each event, with the agent's timeout for it (events map to
    (the agent's timeout, memidx's own deadline), as each adapter's EVENTS do)."""
    return {
        event: {
            "type": "command",
            "command": hook_command(agent, event, portable=portable),
            "timeout": timeout,
        }
        for event, (timeout, _) in events.items()
    }


def mcp_argv(*, portable: bool = False) -> list[str]:
    """The command line that starts memidx's MCP server."""
    return portable_argv(["mcp"]) if portable else [*memidx_argv(), "mcp"]


def mcp_entry(*, portable: bool = False) -> dict[str, object]:
    """The MCP server as `mcpServers` entries name it: its command and its arguments."""
    argv = mcp_argv(portable=portable)
    return {"command": argv[0], "args": argv[1:]}


def unexpanded(command: str, variable: re.Pattern[str]) -> str:
    """A shell command line an agent that expands variables in its settings passes on as it
    is: each `$` that `variable` matches (a `$` the agent takes for a variable) gets `''`
    after it. Every `$` of a line shlex quoted is inside single quotes, where `$''` closes and
    reopens them: the shell reads the same word, the agent no variable."""
    return variable.sub("$''", command)


def scripted(server: dict[str, object], variable: re.Pattern[str]) -> dict[str, object]:
    """An `mcpServers` entry whose argv holds a `$` the agent would expand (`variable`), no
    `$` of an argv having an escape: `sh -c 'exec COMMAND "$@"' memidx mcp`, its `$` made
    unexpanded() (a clone's path, `/home/me/${X}/memidx`); any other entry as it is."""
    argv = [str(server["command"]), *cast(list[str], server["args"])]
    if not any(variable.search(word) for word in argv):
        return server
    script = f'exec {unexpanded(shlex.join(argv[:-1]), variable)} "$@"'
    return {**server, "command": SHELL, "args": ["-c", script, "memidx", argv[-1]]}


def hooks_file(path: Path, agent: str, hooks: dict[str, HookEntry]) -> ConfigFile:
    """A JSON file whose `hooks` table gets memidx's hook for each event."""
    mark, written = marker(agent), WRITTEN_EVENTS[agent] | set(hooks)
    earlier = EARLIER_TIMEOUTS.get(agent, {})
    return ConfigFile(
        path,
        lambda doc: merge_hooks(doc, hooks, mark, written, earlier),
        lambda doc: remove_hooks(doc, mark, written),
        lambda doc: hooks_state(doc, mark),
        lambda doc: repointed(hook_commands(doc, mark), _commands(hooks)),
        edited=lambda doc: edited_hooks(doc, hooks, mark, earlier),
    )


def _commands(hooks: Mapping[str, HookEntry]) -> list[str]:
    return [str(entry.get("command", "")) for entry in hooks.values()]


def hooks_state(doc: Json, mark: str) -> list[str]:
    events = hooked_events(doc, mark)
    if not events:
        return []
    argvs: list[list[str]] = []
    for command in hook_commands(doc, mark):
        try:
            argvs.append(hook_owner.unwrapped(shlex.split(command)))  # `timeout 5 <...>/memidx`
        except ValueError:
            continue
    return [f"hooks: {', '.join(events)}" + gone(argvs)]


# status names the agent and scope in it (memidx/cli/agent_command.py): a bare `memidx agent
# install` installs Claude Code's hooks, whichever agent's file the line was of
REINSTALL = "run `memidx agent install` again from your memory's clone"


GONE = ", which no longer exists: "  # status's words for a memidx that is not there
DOES_NOTHING = "neither is here, so they do nothing: "


def runs_no_memidx(installed: Sequence[str]) -> bool:
    """Whether status's words for a file (its `installed`) say that what memidx put there runs
    a memidx by a path that no longer exists: the agent's every call of it fails. (A project's
    portable entries with no memidx on this machine's PATH are not: a teammate's clone.)"""
    return any(GONE in item for item in installed)


def gone(argvs: Sequence[Sequence[str]]) -> str:
    """What to say when memidx's entries run a memidx that is not there: one by absolute path
    whose clone was moved or deleted (the agent's every call of them fails), or a portable one
    with neither a memidx on PATH nor `make install`'s link (they do nothing)."""
    for argv in map(unwrapped, argvs):
        if parse_launch(argv) is not None:
            link = unreached_link()
            if link is not None:
                return f" ({nothing_runs(link)})"
            continue
        program = (argv or [""])[0]
        if Path(program).is_absolute() and not Path(program).exists():
            return f" (they run {program}{GONE}{REINSTALL})"
    return ""


def unreached_link() -> Path | None:
    """`make install`'s link when a portable command would find no memidx here (none on PATH,
    and no link), else None."""
    link = bin_dir(os.environ) / "memidx"
    return link if shutil.which("memidx") is None and not os.access(link, os.X_OK) else None


def nothing_runs(link: Path) -> str:
    return (
        f"they run the memidx on your PATH, else {link}; {DOES_NOTHING}"
        "run `make install` in your memory's clone"
    )


def mcp_file(path: Path, agent: str, entry: dict[str, object]) -> ConfigFile:
    """A JSON file whose `mcpServers` table gets memidx's MCP server as `entry`; a server of
    that name memidx did not write is left alone (install stops, uninstall keeps it)."""
    earlier = EARLIER_MCP_VALUES.get(agent, {})

    def install(doc: Json) -> Json:
        found = get_entry(doc, ["mcpServers", SERVER])
        if found is not None and not is_our_server(found):
            raise MemidxError(
                f"{path}: already has an MCP server {SERVER!r} that memidx did not add",
                "rename or remove it, then install again: memidx left every file alone",
            )
        kept = cast(dict[str, object], found) if isinstance(found, dict) else {}
        flags = mcp_flags(unwrapped(server_argv(kept))) or []  # `--own`, say: the person's
        args = [*cast(list[str], entry["args"]), *flags]
        # the person's keys and values stay (`env`, a timeout), as do the flags of `memidx
        # mcp` they added; an earlier memidx's go
        theirs = persons_keys(kept, entry, earlier)
        order = {key: value for key, value in kept.items() if key in entry or key in theirs}
        return set_entry(doc, ["mcpServers", SERVER], {**order, **entry, **theirs, "args": args})

    def uninstall(doc: Json) -> Json:
        found = get_entry(doc, ["mcpServers", SERVER])
        return drop_entry(doc, ["mcpServers", SERVER]) if is_our_server(found) else doc

    def edited(doc: Json) -> list[str]:
        found = get_entry(doc, ["mcpServers", SERVER])
        if not is_our_server(found):
            return []
        kept = cast(dict[str, object], found)
        keys = list(persons_keys(kept, entry, earlier))
        flags = mcp_flags(unwrapped(server_argv(kept)))
        return (
            [f"the MCP server's {', '.join(['args'] * bool(flags) + keys)}"]
            if flags or keys
            else []
        )

    return ConfigFile(path, install, uninstall, mcp_state, edited=edited)


def mcp_state(doc: Json) -> list[str]:
    entry = get_entry(doc, ["mcpServers", SERVER])
    if entry is None:
        return []
    if not is_our_server(entry):
        return [f"MCP server {SERVER} (not memidx's)"]
    return [f"MCP server {SERVER}" + gone([server_argv(entry)])]


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

    def notes(doc: Json) -> list[str]:
        return [said for part in parts if part.notes for said in part.notes(doc)]

    def edited(doc: Json) -> list[str]:
        return [said for part in parts if part.edited for said in part.edited(doc)]

    return ConfigFile(parts[0].path, install, uninstall, installed, notes, edited=edited)
