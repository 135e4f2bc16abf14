"""Where Cursor's hooks, MCP servers and rules live: `.cursor/hooks.json` (version 1: each
event a flat list of `{"command": ...}`), `.cursor/mcp.json` and the rule
`.cursor/rules/memidx.mdc` in the project, or the same under `~/.cursor/` for the user."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Collection
from pathlib import Path
from typing import cast

from memidx.agents import hook_owner
from memidx.agents.cursor import EVENTS, NAME
from memidx.agents.entries import (
    EARLIER_TIMEOUTS,
    WRITTEN_EVENTS,
    gone,
    hook_command,
    marker,
    mcp_entry,
    mcp_file,
)
from memidx.agents.install import ConfigFile, project_root
from memidx.agents.json_text import LEFT_ALONE
from memidx.agents.settings import Edit, Json, changed_hooks, is_ours, replaced, repointed
from memidx.agents.text_install import TextFile, own_file
from memidx.errors import MemidxError
from memidx.locations import home_folder

MARKER = marker(NAME)
WRITTEN = WRITTEN_EVENTS[NAME] | set(EVENTS)  # the only events whose memidx hooks are memidx's
RULE = """---
description: memidx, the shared memory of this project's agents
alwaysApply: true
---
Before starting a task, call memidx's `search` tool (MCP server `memidx`) with the task's key
words: earlier decisions, notes and sessions about this project are there. Cite what you use by
its ref:line. Added by `memidx agent install cursor`; `memidx agent uninstall cursor` removes it.
"""


def _hooks_table(doc: Json, path: Path) -> Json:
    """hooks.json's `hooks` ({} when absent); MemidxError naming the file when it is not an
    object of lists, which memidx would otherwise overwrite or misread."""
    table = doc.get("hooks", {})
    if not isinstance(table, dict):
        raise MemidxError(f'{path}: "hooks" is not an object', LEFT_ALONE)
    for event, listed in cast(Json, table).items():
        if not isinstance(listed, list):
            raise MemidxError(f'{path}: "hooks".{event} is not a list', LEFT_ALONE)
    return cast(Json, table)


def _install_hooks(path: Path, portable: bool) -> Edit:
    def install(doc: Json) -> Json:
        _hooks_table(doc, path)
        doc = _uninstall_hooks(doc, keep=set(EVENTS))
        table = dict(cast(Json, doc.get("hooks")) if isinstance(doc.get("hooks"), dict) else {})
        for event, (timeout, _) in EVENTS.items():
            listed = table.get(event)
            entries = list(cast(list[object], listed)) if isinstance(listed, list) else []
            command = hook_command(NAME, event, portable=portable)
            entry: Json = {"command": command, "timeout": timeout}
            table[event] = _put_hook(entries, entry, EARLIER_TIMEOUTS.get(NAME, {}).get(event, ()))
        versioned = doc if "version" in doc else {"version": 1, **doc}
        return {**versioned, "hooks": table}

    return install


def _put_hook(entries: list[object], entry: Json, earlier: Collection[object]) -> list[object]:
    """`entries` with memidx's first hook replaced by `entry` where it is (installing again,
    or after an upgrade, moves nothing) and any other of memidx's gone; else `entry` last."""
    ours = [i for i, e in enumerate(entries) if is_ours(e, MARKER)]
    if not ours:
        return [*entries, entry]
    first = replaced(cast(Json, entries[ours[0]]), entry, earlier)  # the person's keys, wrapper
    return [first if i == ours[0] else e for i, e in enumerate(entries) if i not in ours[1:]]


def _uninstall_hooks(doc: Json, keep: Collection[str] = ()) -> Json:
    """`doc` without memidx's hooks of the events it ever hooked (WRITTEN), but `keep`'s."""
    table = doc.get("hooks")
    if not isinstance(table, dict):
        return doc
    kept: Json = {}
    for event, listed in cast(Json, table).items():
        if not isinstance(listed, list) or event in keep or event not in WRITTEN:
            kept[event] = listed
            continue
        entries = cast(list[object], listed)
        rest = [e for e in entries if not is_ours(e, MARKER)]
        if rest or not entries:
            kept[event] = rest
    if kept:
        return {**doc, "hooks": kept}
    rest_doc = {k: v for k, v in doc.items() if k != "hooks"}
    return {} if rest_doc == {"version": 1} else rest_doc


def _hooks_state(path: Path) -> Callable[[Json], list[str]]:
    def state(doc: Json) -> list[str]:
        events = [
            event for event, listed in _hooks_table(doc, path).items()
            if any(is_ours(e, MARKER) for e in cast(list[object], listed))
        ]  # fmt: skip
        if not events:
            return []
        argvs: list[list[str]] = []
        for command in _our_commands(doc):
            try:
                argvs.append(hook_owner.unwrapped(shlex.split(command)))  # `nice -n 5 <...>`
            except ValueError:
                continue
        return [f"hooks: {', '.join(events)}" + gone(argvs)]  # a memidx moved or deleted

    return state


def _our_commands(doc: Json) -> list[str]:
    """The commands of memidx's hooks in hooks.json, event by event."""
    table = doc.get("hooks")
    lists: list[object] = [*cast(Json, table).values()] if isinstance(table, dict) else []
    found: list[str] = []
    for listed in lists:
        for entry in cast(list[object], listed) if isinstance(listed, list) else []:
            if is_ours(entry, MARKER):
                found.append(str(cast(Json, entry)["command"]))
    return found


def _edited(doc: Json) -> list[str]:
    """memidx's hooks the person changed, in words (uninstall removes them: it said nothing)."""
    table = doc.get("hooks")
    found: list[tuple[str, object]] = []
    for event, entries in (cast(Json, table) if isinstance(table, dict) else {}).items():
        listed = cast(list[object], entries) if isinstance(entries, list) else []
        found.extend((event, entry) for entry in listed if is_ours(entry, MARKER))
    ours = {event: {"command": "", "timeout": timeout} for event, (timeout, _) in EVENTS.items()}
    return changed_hooks(found, cast(dict[str, Json], ours), EARLIER_TIMEOUTS.get(NAME, {}))


def _fresh(portable: bool) -> list[str]:
    return [hook_command(NAME, event, portable=portable) for event in EVENTS]


def config_files(scope: str, cwd: Path) -> list[ConfigFile | TextFile]:
    project = scope == "project"
    folder = (project_root(cwd) if project else home_folder()) / ".cursor"
    hooks = folder / "hooks.json"
    return [
        ConfigFile(
            hooks,
            _install_hooks(hooks, project),
            _uninstall_hooks,
            _hooks_state(hooks),
            lambda doc: repointed(_our_commands(doc), _fresh(project)),
            edited=_edited,
        ),
        mcp_file(folder / "mcp.json", NAME, mcp_entry(portable=project)),
        own_file(folder / "rules" / "memidx.mdc", RULE, "rule memidx.mdc"),
    ]
