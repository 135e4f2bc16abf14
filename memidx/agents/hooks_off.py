"""Whether an agent itself has switched its hooks off in one of its own settings files (Claude
Code's `disableAllHooks`, Gemini CLI's `hooksConfig.enabled`, Codex CLI's `[features] hooks`):
memidx's hooks are then installed and never run, which `memidx agent status` says. Reads files,
never writes them; a file it cannot read says nothing here (status names it on its own line)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from memidx.agents.config_text import read_config
from memidx.agents.json_text import BOM, parse_json
from memidx.agents.settings import get_entry
from memidx.errors import MemidxError
from memidx.frozen import Value

Said = bool | None  # True: hooks off; False: on; None: the file says neither


class Switch(Value):
    """One file where the agent reads whether its hooks run, and how it says so there."""

    path: Path
    read: Callable[[str], Said]  # the file's text (BOM kept) to what it says
    within: Path | None = None  # the folder whose hooks files alone it concerns (None: all)
    why: str = ""  # what status adds to the file's name (which setting of a policy)
    remedy: str = ""  # the person's setting: how install says to switch the hooks back on
    note: str = ""  # what status says in place of `switched off in <file>`, when it is not so
    unread: Said = None  # what a file it cannot read says (a folder, a FIFO): None, nothing


def switched_off(switches: Sequence[Switch], hooks: Path) -> Switch | None:
    """The switch that switches off the agent's hooks in the file `hooks`, or None: of
    `switches` (the agent's own precedence, highest first) that concern it, the first that
    says on or off decides."""
    for one in switches:
        if one.within is not None and not hooks.is_relative_to(one.within):
            continue
        try:
            said = one.read(read_config(one.path))
        except (MemidxError, ValueError, RecursionError):
            said = one.unread
        if said is not None:
            return one if said else None
    return None


def json_switch(path: Path, keys: Sequence[str], off: bool, *, comments: bool = False) -> Switch:
    """A JSON settings file whose boolean at `keys` switches hooks off when it is `off` (read
    past comments where the agent reads them: Gemini CLI)."""

    def read(text: str) -> Said:
        value = get_entry(parse_json(text, path, bom=True, comments=comments), keys)
        return value == off if isinstance(value, bool) else None

    return Switch(path, read, remedy=_remedy(f"`{'.'.join(keys)}`", str(off).lower(), not off))


def json_strings(path: Path, keys: Sequence[str], *, comments: bool = False) -> list[str]:
    """The strings of the list at `keys` in a JSON settings file ([] for none, or for a file
    that cannot be read)."""
    try:
        value = get_entry(parse_json(read_config(path), path, bom=True, comments=comments), keys)
    except MemidxError:
        return []
    listed = cast(list[object], value) if isinstance(value, list) else []
    return [one for one in listed if isinstance(one, str)]


def toml_table(text: str) -> dict[str, object]:
    """A TOML document as a table (ValueError when it is no TOML)."""
    return tomllib.loads(text.removeprefix(BOM))


def toml_switch(path: Path, keys: Sequence[Sequence[str]], off: bool) -> Switch:
    """A TOML file whose first boolean found at one of `keys` switches hooks off when it is
    `off` (Codex CLI's `features.hooks`, then its older name `features.codex_hooks`)."""

    def read(text: str) -> Said:
        table = toml_table(text)
        for at in keys:
            value = get_entry(table, at)
            if isinstance(value, bool):
                return value == off
        return None

    named = " (or ".join(f"`{'.'.join(at)}`" for at in keys) + ")" * (len(keys) - 1)
    return Switch(path, read, remedy=_remedy(named, str(off).lower(), not off))


def _remedy(key: str, said: str, on: bool) -> str:
    return f"{key} is {said} there: set it to {str(on).lower()} or remove it"


def off_note(path: Path, why: str = "") -> str:
    """What status says of installed hooks that the agent has switched off."""
    return f"installed, but hooks are switched off in {path}" + (f" ({why})" if why else "")
