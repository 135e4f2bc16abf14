"""Editing agents' JSON configuration files: merge memidx's entries in, take exactly those out,
keep everything else as it was, and back a file up before changing it. The edits are pure
functions on the loaded document; reading is the function at the end, the text itself
memidx/agents/json_text.py."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from typing import cast

from memidx.agents.config_text import read_config
from memidx.agents.hook_owner import HOOK, hook_args, memidx_part, rewrapped
from memidx.agents.json_text import Json, parse_json
from memidx.errors import MemidxError

MISSHAPEN = "fix it, or add memidx's entries by hand: memidx left every file alone"
HookEntry = dict[str, object]  # {"type": "command", "command": ..., "timeout": ...}


def _dict(value: object) -> Json | None:
    return cast(Json, value) if isinstance(value, dict) else None


def _list(value: object) -> list[object] | None:
    return cast(list[object], value) if isinstance(value, list) else None


class Misshapen(MemidxError):
    """A value memidx would write into holds something of another shape (a string where the
    agent reads a table): the person's, so memidx stops rather than replace it. The edits are
    pure and know no file: plan() puts the file's name before the message."""

    def __init__(self, where: str, shape: str) -> None:
        super().__init__(f"{where} is not {shape}", MISSHAPEN)


def _table(doc: Json, key: str, where: str = "") -> Json | None:
    """`doc[key]` when it is an object, None when absent; Misshapen when it is anything else."""
    value = doc.get(key)
    if value is None:
        return None
    found = _dict(value)
    if found is None:
        raise Misshapen(f"{where}{json.dumps(key)}", "an object")
    return found


def is_ours(entry: object, marker: str) -> bool:
    """Whether a hook entry is one memidx installed: its command runs memidx's hook (parsed:
    hook_owner.hook_args) for the agent `marker` names (`agent hook claude-code`)."""
    found = _dict(entry)
    command = found.get("command") if found is not None else None
    args = hook_args(command) if isinstance(command, str) else None
    words = marker.split()
    return args is not None and [*HOOK, *args][: len(words)] == words


def merge_hooks(
    doc: Json,
    hooks: dict[str, HookEntry],
    marker: str,
    written: Collection[str],
    earlier: Mapping[str, Collection[object]] | None = None,
) -> Json:
    """`doc` with memidx's hook for each event: where a memidx hook already is (in its group,
    with the person's matcher), else in a group of its own at the end; so installing twice, or
    again after an upgrade, moves nothing. Every other hook stays; memidx's hooks of events an
    earlier memidx hooked (`written`) and this one no longer does go, and a memidx hook a
    person put on any other event stays: memidx never wrote it. `earlier`: the timeouts an
    earlier memidx wrote on each event's hook (replaced())."""
    table = dict(_table(doc, "hooks") or {})
    for event in hooks:
        if table.get(event) is not None and _list(table[event]) is None:
            raise Misshapen(f'"hooks".{json.dumps(event)}', "a list")
    doc = remove_hooks(doc, marker, written, keep=set(hooks))
    table = dict(_table(doc, "hooks") or {})
    for event, entry in hooks.items():
        groups = _list(table.get(event))
        listed = list(groups) if groups is not None else []
        table[event] = _put_hook(listed, entry, marker, (earlier or {}).get(event, ()))
    return {**doc, "hooks": table}


def _put_hook(
    groups: list[object], entry: HookEntry, marker: str, earlier: Collection[object]
) -> list[object]:
    """`groups` with memidx's first hook replaced by `entry` and any other memidx hook gone
    (a group left empty by that too); a group holding `entry` appended when none was there."""
    placed = False
    kept: list[object] = []
    for group in groups:
        hooks = _list((_dict(group) or {}).get("hooks"))
        if hooks is None or not any(is_ours(h, marker) for h in hooks):
            kept.append(group)
            continue
        rest: list[object] = []
        for hook in hooks:
            if not is_ours(hook, marker):
                rest.append(hook)
            elif not placed:  # keys the person added to it ("async", say) stay
                rest.append(replaced(cast(Json, hook), entry, earlier))
                placed = True
        if rest:
            kept.append({**cast(Json, group), "hooks": rest})
    return kept if placed else [*kept, {"matcher": "", "hooks": [entry]}]


def replaced(hook: Json, entry: Json, earlier: Collection[object] = ()) -> Json:
    """memidx's `hook` as `entry` has it, keeping the keys the person added, the timeout they
    set (not one an earlier memidx wrote there, `earlier`: that one goes, else an upgrade's
    changed timeout never applied, and uninstall called it the person's), and the command
    when the person wrapped it (`MEMIDX_ROOT=/srv/memory <...>/memidx agent hook ...`,
    `timeout 5 ...`): installing again put memidx's bare command in its place, the hook then
    reaching another memory. A wrapped command whose memidx no
    longer exists (a clone moved or deleted) runs `entry`'s in the person's wrapper: it was
    kept as it was, failing at every event."""
    command = str(hook.get("command", ""))
    kept = {k: hook[k] for k in ("timeout",) if k in hook and hook[k] not in earlier}
    if hook_args(command, wrapped=False) is not None:  # memidx's own, unwrapped
        return {**hook, **entry, **kept}
    if gone_program(command) is not None:
        command = rewrapped(command, str(entry.get("command", "")))
    return {**hook, **entry, **kept, "command": command}


def gone_program(command: str) -> str | None:
    """The program a hook command of memidx's runs when it is a path that no longer exists
    (its clone moved or deleted), else None. Reads the disk: the one edit here that does."""
    found = memidx_part(command)
    if found is None or not Path(found[1]).is_absolute() or Path(found[1]).exists():
        return None
    return found[1]


def repointed(commands: Iterable[str], fresh: Iterable[str]) -> list[str]:
    """What install says of the hook `commands` of memidx's that the person wrapped and that
    run a memidx no longer there (replaced() points them at the memidx of the `fresh`
    commands, memidx's own now): one line per such program."""
    found = (memidx_part(command) for command in fresh)
    now = next((one[1] for one in found if one is not None), "")
    if PurePath(now).name == "sh":  # a project's resolver
        now = "the memidx on your PATH (else `make install`'s link)"
    said: list[str] = []
    for command in commands:
        program = gone_program(command)
        if program is not None and hook_args(command, wrapped=False) is None:
            said.append(
                f"hooks you wrapped ran {program}, which no longer exists: they run {now}"
                " now, in your wrapper"
            )
    return list(dict.fromkeys(said))


def remove_hooks(
    doc: Json, marker: str, written: Collection[str], keep: Collection[str] = ()
) -> Json:
    """`doc` without memidx's hooks of the events a memidx ever hooked (`written`; but those
    of the events in `keep`); a group, event or table left empty by that goes too."""
    table = _dict(doc.get("hooks"))
    if table is None:
        return doc
    kept: Json = {}
    for event, groups in table.items():
        listed = _list(groups)
        if listed is None or event in keep or event not in written:
            kept[event] = groups
            continue
        new_groups: list[object] = []
        for group in listed:
            hooks = _list((_dict(group) or {}).get("hooks"))
            if hooks is None or not any(is_ours(h, marker) for h in hooks):
                new_groups.append(group)
                continue
            rest = [h for h in hooks if not is_ours(h, marker)]
            if rest:
                new_groups.append({**cast(Json, group), "hooks": rest})
        if new_groups or not listed:
            kept[event] = new_groups
    return {**doc, "hooks": kept} if kept or not table else _without(doc, "hooks")


def _without(doc: Json, key: str) -> Json:
    return {k: v for k, v in doc.items() if k != key}


def hooked_events(doc: Json, marker: str) -> list[str]:
    """The events that run a memidx hook."""
    return list(dict.fromkeys(event for event, _ in _our_hooks(doc, marker)))


def hook_commands(doc: Json, marker: str) -> list[str]:
    """The commands of memidx's hooks, event by event."""
    return [str((_dict(hook) or {}).get("command", "")) for _, hook in _our_hooks(doc, marker)]


def _our_hooks(doc: Json, marker: str) -> Iterator[tuple[str, object]]:
    """(event, hook entry) of each of memidx's hooks in the `hooks` table, in order."""
    table = _dict(doc.get("hooks")) or {}
    for event, groups in table.items():
        for group in _list(groups) or []:
            for hook in _list((_dict(group) or {}).get("hooks")) or []:
                if is_ours(hook, marker):
                    yield event, hook


def edited_hooks(
    doc: Json,
    hooks: dict[str, HookEntry],
    marker: str,
    earlier: Mapping[str, Collection[object]] | None = None,
) -> list[str]:
    """memidx's hooks in `doc` that the person changed, in words (`the Stop hook's command,
    timeout`): a command they wrapped, a key of theirs, a value other than memidx's (a
    timeout an earlier memidx wrote, `earlier`, is memidx's)."""
    return changed_hooks(_our_hooks(doc, marker), hooks, earlier)


def changed_hooks(
    found_hooks: Iterable[tuple[str, object]],
    hooks: dict[str, HookEntry],
    earlier: Mapping[str, Collection[object]] | None = None,
) -> list[str]:
    """edited_hooks() of memidx's (event, hook entry) pairs, however the file holds them."""
    said: list[str] = []
    for event, hook in found_hooks:
        entry, found = hooks.get(event), _dict(hook) or {}
        if entry is None:  # on an event this memidx no longer hooks: an older memidx's
            continue
        ours = (earlier or {}).get(event, ())
        keys = [
            k
            for k in {**found, **entry}
            if k != "command"
            and found.get(k) != entry.get(k)
            and not (k == "timeout" and found.get(k) in ours)
        ]
        if hook_args(str(found.get("command", "")), wrapped=False) is None:  # wrapped
            keys.insert(0, "command")
        if keys:
            said.append(f"the {event} hook's {', '.join(keys)}")
    return said


def set_entry(doc: Json, path: Sequence[str], value: object, where: str = "") -> Json:
    """`doc` with `value` at the nested `path` (tables made as needed; Misshapen where a
    value on the way is no table)."""
    if len(path) == 1:
        return {**doc, path[0]: value}
    inner = _table(doc, path[0], where) or {}
    return {**doc, path[0]: set_entry(inner, path[1:], value, f"{where}{json.dumps(path[0])}.")}


def drop_entry(doc: Json, path: Sequence[str]) -> Json:
    """`doc` without the entry at `path`; a table left empty by that goes too."""
    if len(path) == 1:
        return _without(doc, path[0])
    inner = _dict(doc.get(path[0]))
    if inner is None or (path[1] not in inner and len(path) == 2):
        return doc
    rest = drop_entry(inner, path[1:])
    return _without(doc, path[0]) if not rest else {**doc, path[0]: rest}


def get_entry(doc: Json, path: Sequence[str]) -> object:
    value: object = doc
    for key in path:
        found = _dict(value)
        if found is None:
            return None
        value = found.get(key)
    return value


def add_to_list(doc: Json, key: str, item: str) -> Json:
    found = doc.get(key)
    if found is not None and _list(found) is None:
        raise Misshapen(json.dumps(key), "a list")
    items = _list(found) or []
    return doc if item in items else {**doc, key: [*items, item]}


def remove_from_list(doc: Json, key: str, item: str) -> Json:
    items = _list(doc.get(key))
    if items is None or item not in items:
        return doc
    rest = [i for i in items if i != item]
    return {**doc, key: rest} if rest else _without(doc, key)


def read_json(path: Path, *, bom: bool = False) -> Json:
    """The JSON object in `path` ({} when the file is missing or empty; `bom`: parse_json)."""
    return parse_json(read_config(path), path, bom=bom)


Edit = Callable[[Json], Json]
