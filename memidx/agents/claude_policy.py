"""Claude Code's managed settings, the machine's policy an administrator writes
(`/etc/claude-code/managed-settings.json` on Linux, then each `*.json` of
`managed-settings.d/` beside it in name order, a later file's value winning): with
`disableAllHooks` there Claude Code runs no hooks at all, and with `allowManagedHooksOnly`
only the hooks of those files, so none of memidx's. memidx reads them, never writes them (only
an administrator can), and no variable moves them: a policy is where Claude Code reads it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memidx.agents.config_text import read_config
from memidx.agents.hooks_off import Switch
from memidx.agents.json_text import parse_json
from memidx.errors import MemidxError

# where Claude Code reads the machine's policy (Windows' is not memidx's: no hooks run there)
FOLDER = Path(
    "/Library/Application Support/ClaudeCode" if sys.platform == "darwin" else "/etc/claude-code"
)
HOOKS_OFF = ("disableAllHooks", "allowManagedHooksOnly")  # either, true: no hook of memidx's runs
POLICY_WHY = "the machine's policy: "  # what status adds before the setting's name


def policy_files(folder: Path) -> list[Path]:
    """The managed settings files in `folder`, in the order Claude Code merges them."""
    try:
        dropped = sorted(
            one
            for one in (folder / "managed-settings.d").iterdir()
            if one.suffix == ".json" and not one.name.startswith(".")
        )
    except OSError:  # no such folder (as a rule), or one memidx may not read
        dropped = []
    return [folder / "managed-settings.json", *dropped]


def hooks_policy(files: Sequence[tuple[Path, str]]) -> tuple[Path, str] | None:
    """Of the managed settings `files` (each path and text, in merge order), the one whose
    `disableAllHooks` or `allowManagedHooksOnly` switches memidx's hooks off, and that key (a
    later file's value of a key wins, `false` too), None when they let them run. A file that
    is no JSON object is left out, as Claude Code leaves it."""
    decided = _decided(files)
    return next(((path, key) for key, (on, path) in decided.items() if on), None)


def hooks_allowed(files: Sequence[tuple[Path, str]]) -> Path | None:
    """The managed settings file whose `disableAllHooks: false` is the policy's last word, when
    nothing there switches hooks off: it outranks the person's own `true` (Claude Code 2.1.197
    runs their hooks; status said a user's settings.json switched memidx's off)."""
    decided = _decided(files)
    said = decided.get(HOOKS_OFF[0])
    if said is None or said[0] or hooks_policy(files) is not None:
        return None
    return said[1]


def _decided(files: Sequence[tuple[Path, str]]) -> dict[str, tuple[bool, Path]]:
    decided: dict[str, tuple[bool, Path]] = {}
    for path, text in files:
        try:
            settings = parse_json(text, path, bom=True)
        except MemidxError:
            continue
        for key in HOOKS_OFF:
            value = settings.get(key)
            if isinstance(value, bool):
                decided[key] = (value, path)
    return decided


def policy_switch(folder: Path = FOLDER) -> Switch | None:
    """The machine's policy as the first of Claude Code's hooks switches when it decides:
    off (`disableAllHooks` or `allowManagedHooksOnly`), or on (`disableAllHooks: false`,
    whatever the person's own settings say); None leaves it to those."""
    files: list[tuple[Path, str]] = []
    for path in policy_files(folder):
        try:
            files.append((path, read_config(path)))
        except MemidxError:  # unreadable: Claude Code, run by the same person, cannot read it
            continue
    deciding, allowed = hooks_policy(files), hooks_allowed(files)
    if allowed is not None:
        return Switch(allowed, lambda _text: False)
    if deciding is None:
        return None
    path, key = deciding
    return Switch(path, lambda _text: True, why=f"{POLICY_WHY}{key}")
