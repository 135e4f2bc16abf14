"""Gemini CLI's folder trust (0.61.0, on unless `security.folderTrust.enabled` is false): in a
folder the person has not trusted, Gemini CLI reads no project settings, starts no MCP server
(the user's neither: `gemini mcp list` says "Disabled") and runs no hooks, and headless
(`gemini -p`) it stops. The person's answers to its trust prompt are in
`~/.gemini/trustedFolders.json` (`GEMINI_CLI_TRUSTED_FOLDERS_PATH` moves it): memidx reads them,
and never writes them (trusting a folder lets its own settings run commands: the person's call)."""

from __future__ import annotations

import os
from pathlib import Path

from memidx.agents.config_text import read_config
from memidx.agents.hooks_off import Said, Switch
from memidx.agents.json_text import parse_json
from memidx.agents.settings import get_entry
from memidx.errors import MemidxError

TRUSTED = ("TRUST_FOLDER", "TRUST_PARENT")
DISTRUSTED = "DO_NOT_TRUST"
# "true": Gemini CLI trusts the workspace for the session, past trustedFolders.json (its docs)
TRUST_WORKSPACE = "GEMINI_CLI_TRUST_WORKSPACE"
# An IDE's workspace trust outranks trustedFolders.json too (Gemini CLI 0.61.0 connected to its
# IDE companion), but only the live connection carries it: no file or variable records it.
IDE_TRUST = (
    "unless your IDE trusts the workspace (Gemini CLI connected to an IDE takes the IDE's"
    " workspace trust, which memidx cannot see)"
)


# Either, set so, and Gemini CLI (0.61.0) trusts no folder, before any other word: a trusted
# one, one with folder trust off, or with GEMINI_CLI_TRUST_WORKSPACE=true (`gemini mcp list`
# said "Disabled"; install said nothing)
DISTRUSTING = (("GEMINI_RESTRICTED_MODE", "true"), (TRUST_WORKSPACE, "false"))


# `gemini --skip-trust` sets GEMINI_CLI_TRUST_WORKSPACE=true for its session, over a `false`
# (0.61.0's argument parsing), but GEMINI_RESTRICTED_MODE=true still wins: checked with the
# real CLI (`gemini -p` stops as untrusted, or runs), memidx cannot see the flags it runs with
SKIP_TRUST = "`gemini --skip-trust`, which sets it to true for the session"


def skip_trust_note(said: str) -> str:
    """What `--skip-trust` does to the environment's `said` (`NAME=value`) distrust."""
    if said.startswith(TRUST_WORKSPACE):
        return f"unless Gemini CLI is started as {SKIP_TRUST}"
    return "whatever `gemini --skip-trust` says"


def distrusted_by_environment() -> str | None:
    """The `NAME=value` of this environment by which Gemini CLI trusts no folder, else None."""
    return next((f"{k}={v}" for k, v in DISTRUSTING if os.environ.get(k) == v), None)


def trusted_by_environment() -> bool:
    """Whether this environment trusts the workspace for Gemini CLI (`GEMINI_CLI_TRUST_WORKSPACE
    =true`, which install read as nothing: it warned of a folder Gemini CLI then trusted)."""
    return distrusted_by_environment() is None and os.environ.get(TRUST_WORKSPACE) == "true"


def trusted_folders(home: Path) -> Path:
    """Where Gemini CLI keeps the person's answers (`home`: the folder holding `.gemini/`)."""
    moved = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(moved) if moved else home / ".gemini" / "trustedFolders.json"


def trust_level(text: str, path: Path, folder: Path) -> str | None:
    """The answer that covers `folder` in trustedFolders.json's `text`, as Gemini CLI picks it
    (the longest rule whose folder holds it, a TRUST_PARENT rule's parent folder); None for
    none. MemidxError for a file that is no JSON object (Gemini CLI stops on it too)."""
    rules = parse_json(text, path, comments=True)  # Gemini CLI reads past comments
    found, longest = None, -1
    for rule, level in rules.items():
        where = Path(rule).parent if level == "TRUST_PARENT" else Path(rule)
        if _holds(where, folder) and len(rule) > longest:
            found, longest = level, len(rule)
    return found if isinstance(found, str) else None


def _holds(where: Path, folder: Path) -> bool:
    try:
        return folder.resolve().is_relative_to(where.resolve())
    except (OSError, RuntimeError, ValueError):  # a rule's path with a NUL: install's traceback
        return False


def trust_enabled(settings: list[Path]) -> bool:
    """Whether folder trust is on: the first of `settings` (the system's, the user's, then
    the system's defaults, as Gemini CLI 0.61.0 merges them to check trust) that sets
    `security.folderTrust.enabled`, else on."""
    for path in settings:
        try:
            value = get_entry(
                parse_json(read_config(path), path, bom=True, comments=True), _ENABLED
            )
        except MemidxError:
            continue
        if isinstance(value, bool):
            return value
    return True


_ENABLED = ("security", "folderTrust", "enabled")


def distrust_switch(path: Path, folder: Path, settings: list[Path]) -> Switch:
    """trustedFolders.json as a switch of memidx's hooks in `folder`: off where the person
    told Gemini CLI not to trust it (an unanswered folder gets asked: not off)."""

    said = distrusted_by_environment()  # before the file's answers (status called hooks on)

    def read(text: str) -> Said:
        off = trust_enabled(settings) and trust_level(text, path, folder) == DISTRUSTED
        off = off and not trusted_by_environment()
        return True if off or said else None

    # the IDE's trust outranks the answer, and memidx cannot see it: said, not taken as off
    why = "you told Gemini CLI not to trust the folder, unless an IDE it is connected to trusts it"
    if said:
        why = f"Gemini CLI trusts no folder where {said} is set, {skip_trust_note(said)}"
    return Switch(path, read, why=why)


def untrusted_warning(home: Path, folder: Path, settings: list[Path]) -> str | None:
    """What install says when Gemini CLI does not trust `folder` (its hooks and MCP server
    then do nothing there), else None."""
    path, said = trusted_folders(home), distrusted_by_environment()
    if said:
        return (
            f"Gemini CLI trusts no folder where {said} is set, as it is here,"
            f" {skip_trust_note(said)}: it runs none of memidx's hooks and starts no MCP server"
            f" in {folder} (unset it where Gemini CLI runs)"
        )
    if not trust_enabled(settings) or trusted_by_environment():
        return None
    try:
        level = trust_level(read_config(path), path, folder)
    except MemidxError:
        return None  # Gemini CLI names that file itself, at every start
    if level in TRUSTED:
        return None
    # an IDE's trust is not seen here: each says "unless" (it said the hooks did nothing
    # in a workspace the IDE trusted, where they ran)
    if level == DISTRUSTED:
        return (
            f"you told Gemini CLI not to trust {folder} ({path}): it runs none of memidx's"
            f" hooks and starts no MCP server there {IDE_TRUST}; `/permissions trust` in"
            " Gemini CLI trusts it"
        )
    return (
        f"Gemini CLI runs no hooks and starts no MCP server in a folder it does not trust,"
        f" and {folder} is not trusted in {path}: memidx's hooks and MCP server there do"
        f" nothing {IDE_TRUST} or {TRUST_WORKSPACE}=true is set where it runs (as"
        " `gemini --skip-trust` does for its session); else run `gemini` there and trust the"
        " folder when it asks (headless, `gemini -p` stops there until you do)"
    )
