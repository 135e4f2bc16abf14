"""`memidx agent install|uninstall|status`: apply an adapter's edits to its agent's config
files. Twice changes nothing; every other setting stays; a changed file is backed up first."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from memidx.agents.backups import backup, prepare_backup, remove_made
from memidx.agents.config_text import (
    earlier_text,
    linked,
    put_back,
    read_found,
    refuse_not_utf8,
    refuse_read_only,
    unchanged_since,
    write_config,
)
from memidx.agents.json_text import Json, dump_json, parse_json, refuse_half_characters
from memidx.agents.settings import Edit, Misshapen, read_json
from memidx.errors import MemidxError
from memidx.frozen import Value
from memidx.locations import expand_user, home_folder

SCOPES = ("user", "project")


class ConfigFile(Value):
    """One file of an agent's configuration and memidx's edits of it."""

    path: Path
    install: Edit
    uninstall: Edit
    installed: Callable[[Json], list[str]]  # what of memidx's is in it, in words
    notes: Callable[[Json], list[str]] | None = None  # what install says of it, besides
    bom: bool = False  # the agent reads the file when it starts with a byte-order mark
    # memidx's entries the person changed, in words ("the Stop hook's timeout"): uninstall
    # removes them all the same, and says so (it took a wrapper of theirs without a word)
    edited: Callable[[Json], list[str]] | None = None


class Outcome(Value):
    """What install or uninstall did (or would do) to one file."""

    path: Path
    changed: bool
    backup: Path | None = None
    notes: tuple[str, ...] = ()  # what else install did to it (a hook pointed anew)


def memidx_argv() -> list[str]:
    """The absolute command of this memidx, for hooks and MCP entries: the clone's `.venv`
    one when this runs the clone's code from another of its virtualenvs (clone_script)."""
    executable = Path(sys.executable)
    script = clone_script(executable, Path(__file__)) or executable.parent / "memidx"
    if script.is_file():
        return [str(script.absolute())]
    return [str(executable.absolute()), "-m", "memidx"]


CLONE_VENV = ".venv"  # `make install`'s virtualenv, beside `make dev`'s `.venv-dev`


def clone_script(executable: Path, source: Path) -> Path | None:
    """`<clone>/.venv/bin/memidx` when `executable` is the Python of another virtualenv of the
    clone whose code `source` (this module) is, and that script is there: the user's files
    then name one memidx whichever of the clone's virtualenvs installs them (they flipped
    between `.venv-dev` and `.venv` at each install); None otherwise."""
    venv = executable.parent.parent
    if venv.name == CLONE_VENV:
        return None
    try:
        clone = source.resolve().parents[2]  # <clone>/memidx/agents/install.py
        if venv.parent.resolve() != clone:  # another clone's, or an installed package
            return None
    except (OSError, IndexError):
        return None
    script = venv.parent / CLONE_VENV / "bin" / "memidx"
    if not (script.is_file() and os.access(script, os.X_OK)):
        return None
    return script if _runs_from(script, script.parent) else None


def _runs_from(script: Path, folder: Path) -> bool:
    """Whether `script`'s first two lines name a Python in `folder`: pip's `#!PYTHON`, or the
    exec line memidx.cli.venv_scripts writes (its path maybe single quoted), as the
    Makefile's VENV_MOVED tells a virtualenv of a clone copied or moved since `make install`,
    whose script runs the original's code, or nothing."""
    try:
        with script.open("rb") as text:
            head = text.readline(4096) + text.readline(4096)
    except OSError:
        return False
    for name in {str(folder.absolute()), str(folder.resolve())}:
        named = os.fsencode(name + "/")
        if named in head or named.replace(b"'", b"'\"'\"'") in head:
            return True
    return False


def shell_command(*args: str) -> str:
    """`memidx ARGS` as one shell command line, the absolute path quoted."""
    return " ".join(shlex.quote(part) for part in (*memidx_argv(), *args))


def project_root(cwd: Path) -> Path:
    """The project a project-scope install goes into: the git work tree around cwd, else cwd."""
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def user_folder(variable: str, default: str) -> Path:
    """An agent's folder of user files: where the environment's `variable` moves it, else
    `~/<default>`."""
    configured = os.environ.get(variable)
    return expand_user(configured) if configured else home_folder() / default


class Change(Value):
    """What install or uninstall would do to one file: its new text, or None to delete it."""

    path: Path
    changed: bool
    text: str | None = None
    backup: bool = True  # copy the file before deleting it (not memidx's own rule or plugin)
    before: str | None = None  # the text it was planned from (None: the file was missing)
    notes: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()  # memidx's entries the person changed (ConfigFile.edited)


def edited_note(edited: tuple[str, ...], *, dry_run: bool) -> tuple[str, ...]:
    """What uninstall says of memidx's entries the person changed: removed all the same, and
    kept in the backup it takes first, which a dry run takes not (it said "the backup keeps
    them" of a backup that was never made)."""
    if not edited:
        return ()
    kept = "a backup of the file would keep them" if dry_run else "the backup keeps them"
    return (f"with your changes to {', '.join(edited)} ({kept})",)


def plan(one: ConfigFile, *, remove: bool) -> Change:
    """The change to one JSON file (reads it; raises for a file memidx must leave alone).
    Uninstalling gives back the file's own text from before the install when nothing else
    changed since (its backup holds the same settings), not the same settings reformatted."""
    found = read_found(one.path)
    text = found or ""
    before = parse_json(text, one.path, bom=one.bom)
    try:
        after = (one.uninstall if remove else one.install)(before)
    except Misshapen as exc:
        raise MemidxError(f"{one.path}: {exc.message}", exc.hint) from exc
    if after == before:
        return Change(one.path, False)
    refuse_read_only(one.path)

    def undone(old_text: str) -> bool:  # a backup without memidx's, as uninstalling gives
        old = parse_json(old_text, one.path, bom=one.bom)
        return one.uninstall(old) == old and (old == after or one.install(old) == before)

    original = earlier_text(one.path, undone) if remove else None
    notes = tuple(one.notes(before)) if one.notes is not None and not remove else ()
    edited = tuple(one.edited(before)) if remove and one.edited is not None else ()
    if original is not None:
        return Change(one.path, True, original, before=found, notes=notes, edited=edited)
    if remove and not after and not linked(one.path):  # a link into dotfiles stays
        return Change(one.path, True, before=found, edited=edited)  # as if never installed
    refuse_half_characters(before, text, one.path)  # the person's values, written anew
    text = dump_json(after, like=text)
    return Change(one.path, True, text, before=found, notes=notes, edited=edited)


def carry_out(change: Change, *, dry_run: bool) -> Outcome:
    """Write (or delete) one planned file, backing up what it replaces; unchanged files are
    not written."""
    notes = change.notes + edited_note(change.edited, dry_run=dry_run)
    if not change.changed or dry_run:
        return Outcome(change.path, change.changed, notes=notes)
    expected = change.before or ""
    if change.text is None:
        saved = backup(change.path) if change.backup else None
        unchanged_since(change.path, expected)
        change.path.unlink()
        remove_made(change.path.parent)  # `.cursor/rules/` when memidx made it for its rule
        return Outcome(change.path, True, saved, notes)
    saved = write_config(change.path, change.text, expected)
    return Outcome(change.path, True, saved, notes)


def carry_out_all(changes: list[Change], *, dry_run: bool) -> list[Outcome]:
    """Make every planned change, the backup folders first: a state folder memidx cannot
    write, or a text that is not UTF-8, stops it before any file is written; a write that
    fails (a full disk, a file changed meanwhile) puts back the files written before it, so
    no install is left half made (hooks without their MCP server)."""
    for change in changes:
        if change.text is not None:
            refuse_not_utf8(change.path, change.text)
    for change in [] if dry_run else changes:
        if change.changed and change.backup and change.path.exists():
            prepare_backup(change.path)
    done: list[Outcome] = []
    try:
        for change in changes:
            done.append(carry_out(change, dry_run=dry_run))
    except BaseException:
        for change in reversed(changes[: len(done)]):
            if change.changed and not dry_run:
                put_back(change.path, change.before, change.text)
        raise
    return done


def describe(outcomes: list[Outcome], *, remove: bool, dry_run: bool) -> list[str]:
    """One line per file, for people."""
    lines: list[str] = []
    verb = (
        ("would remove memidx from" if remove else "would install into")
        if dry_run
        else ("removed memidx from" if remove else "installed into")
    )
    for one in outcomes:
        if not one.changed:  # an uninstall's file that is not there: it read as one that was
            lines.append(f"unchanged: {one.path}" + " (no such file)" * (not one.path.exists()))
            continue
        backup = f" (backup: {one.backup})" if one.backup else ""
        lines.append(f"{verb} {one.path}{backup}")
        lines.extend(f"  {note}" for note in one.notes)
    return lines


class FileState(Value):
    """What `memidx agent status` found in one file: memidx's entries in words, or why the
    file could not be read (a problem: status exits 1)."""

    path: Path
    installed: tuple[str, ...] = ()
    unreadable: str | None = None
    hooks_off: Path | None = None  # the agent's file that switches memidx's hooks here off
    hooks_off_why: str = ""  # the setting there, where status names it (a machine's policy)
    hooks_off_note: str = ""  # status's words in place of `switched off in <file>` (Switch)
    hooks_skipped: tuple[tuple[str, Path], ...] = ()  # (hook, file): Gemini CLI's disabled


def unreadable(path: Path, exc: Exception) -> FileState:
    """Status's finding for a file it could not read; the line names the file already, so a
    reason that begins with it drops it."""
    return FileState(path, unreadable=str(exc).removeprefix(f"{path}: "))


def states(files: list[ConfigFile]) -> list[FileState]:
    """What of memidx's each file holds."""
    found: list[FileState] = []
    for one in files:
        try:
            found.append(
                FileState(one.path, tuple(one.installed(read_json(one.path, bom=one.bom))))
            )
        except Exception as exc:  # noqa: BLE001  # status reports a broken file, never stops
            found.append(unreadable(one.path, exc))
    return found
