"""Which module knows each agent's configuration files, and install, uninstall and status over
both kinds of file (JSON documents, memidx/agents/install.py; text blocks and memidx's own
files, memidx/agents/text_install.py)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Protocol, cast

from memidx.agents.backups import prune_backups
from memidx.agents.config_text import Raced, read_config
from memidx.agents.hooks_off import Switch, switched_off
from memidx.agents.install import (
    ConfigFile,
    FileState,
    Outcome,
    carry_out_all,
    plan,
    project_root,
    states,
    unreadable,
)
from memidx.agents.json_text import parse_json
from memidx.agents.text_install import TextFile, plan_text
from memidx.frozen import replace

AnyFile = ConfigFile | TextFile
INSTALLERS = {
    "claude-code": "memidx.agents.claude_install",
    "codex": "memidx.agents.codex_install",
    "gemini": "memidx.agents.gemini_install",
    "cursor": "memidx.agents.cursor_install",
    "hermes": "memidx.agents.hermes_install",
}
AGENTS = tuple(INSTALLERS)
TITLES = {"claude-code": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI",
          "cursor": "Cursor", "hermes": "Hermes"}  # fmt: skip
SCOPELESS = ("hermes",)  # one configuration, the user's: `--scope` does not move it


class Installer(Protocol):
    def config_files(self, scope: str, cwd: Path) -> list[AnyFile]: ...


def config_files(agent: str, scope: str, cwd: Path) -> list[AnyFile]:
    module = cast(Installer, importlib.import_module(INSTALLERS[agent]))
    return module.config_files(scope, cwd)


def shared_user_file(agent: str, cwd: Path) -> Path | None:
    """The first of the user's own files that a project install from `cwd` writes too (the
    project is the home folder, or a dotfiles repository around it), else None: there the two
    scopes' entries replace each other, each install undoing the other's."""
    if agent in SCOPELESS:
        return None
    user = {one.path.resolve() for one in config_files(agent, "user", cwd)}
    shared = (one.path for one in config_files(agent, "project", cwd))
    return next((path for path in shared if path.resolve() in user), None)


def apply_all(files: list[AnyFile], *, remove: bool, dry_run: bool) -> list[Outcome]:
    """Every file's change planned first, then made: a file memidx must leave alone (not valid
    JSON or TOML, someone else's, read-only) stops the whole install before any file is written.
    A file another writer changed meanwhile (Claude Code saves `~/.claude.json` as it runs) is
    planned again from its new text, a few times, rather than its change overwritten. Once
    every file is written, each changed file's older backups are pruned (prune_backups)."""
    for attempt in range(ATTEMPTS):
        changes = [
            plan_text(one, remove=remove) if isinstance(one, TextFile) else plan(one, remove=remove)
            for one in files
        ]
        try:
            done = carry_out_all(changes, dry_run=dry_run)
        except Raced:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        for one, outcome in zip(files, done, strict=True):
            if outcome.changed and not dry_run:
                prune_backups(one.path, without_memidx(one))
        return done
    raise AssertionError("unreachable")


def without_memidx(one: AnyFile) -> Callable[[str], bool]:
    """Whether a text of `one`'s file holds none of memidx's entries (uninstall leaves it as
    it is): a backup uninstall may give back."""
    if isinstance(one, TextFile):
        return lambda text: one.uninstall(text) == text

    def holds_none(text: str) -> bool:
        old = parse_json(text, one.path, bom=one.bom)
        return one.uninstall(old) == old

    return holds_none


ATTEMPTS = 3


def states_all(files: list[AnyFile]) -> list[FileState]:
    found: list[FileState] = []
    for one in files:
        if isinstance(one, ConfigFile):
            found.extend(states([one]))
            continue
        try:
            found.append(FileState(one.path, tuple(one.installed(read_config(one.path)))))
        except Exception as exc:  # noqa: BLE001  # status reports a broken file, never stops
            found.append(unreadable(one.path, exc))
    return found


def planned_states(files: list[AnyFile]) -> list[FileState]:
    """What of memidx's each file would hold once installed (an install's dry run)."""
    found: list[FileState] = []
    for one in files:
        try:
            if isinstance(one, ConfigFile):
                after = one.install(parse_json(read_config(one.path), one.path, bom=one.bom))
                found.append(FileState(one.path, tuple(one.installed(after))))
            else:
                after_text = one.install(read_config(one.path))
                found.append(FileState(one.path, tuple(one.installed(after_text))))
        except Exception as exc:  # noqa: BLE001  # a warning's source, never a stop
            found.append(unreadable(one.path, exc))
    return found


def with_hooks_off(agent: str, cwd: Path, found: list[FileState]) -> list[FileState]:
    """`found` with, on each file holding memidx's hooks, the agent's own settings file that
    switches its hooks off, and memidx's hooks it skips by name (status said they were
    installed, and they never ran)."""
    module = importlib.import_module(INSTALLERS[agent])
    by_name = cast(
        "Callable[[Path], list[tuple[str, Path]]] | None", getattr(module, "skipped_hooks", None)
    )
    listed = _switches(agent, cwd)
    skipped = tuple(by_name(cwd)) if by_name is not None else ()
    return [
        _switched(state, switched_off(listed, state.path), skipped)
        if any(said.startswith("hooks: ") for said in state.installed)
        else state
        for state in found
    ]


def _switches(agent: str, cwd: Path) -> list[Switch]:
    """The agent's hooks switches, highest precedence first ([] for an agent with none)."""
    module = importlib.import_module(INSTALLERS[agent])
    found = cast("Callable[[Path], list[Switch]] | None", getattr(module, "hooks_switches", None))
    return found(cwd) if found is not None else []


def _switched(
    state: FileState, off: Switch | None, skipped: tuple[tuple[str, Path], ...]
) -> FileState:
    path, why, note = (None, "", "") if off is None else (off.path, off.why, off.note)
    return replace(
        state, hooks_off=path, hooks_off_why=why, hooks_off_note=note, hooks_skipped=skipped
    )


def install_warnings(agent: str, cwd: Path, planned: Collection[Path] = ()) -> list[str]:
    """What the agent's installer says besides the files (Gemini CLI's untrusted folder);
    `planned`: the files a dry run would have written, read as holding memidx's entries."""
    module = importlib.import_module(INSTALLERS[agent])
    found = getattr(module, "install_warnings", None)  # not every agent has any
    warnings = cast("Callable[[Path, Collection[Path]], list[str]] | None", found)
    return warnings(cwd, planned) if warnings is not None else []


def hooks_off_warnings(
    agent: str, cwd: Path, files: list[AnyFile], *, dry_run: bool = False
) -> list[str]:
    """What install says of memidx's hooks in `files` that the person's own settings switch
    off (Claude Code's `"disableAllHooks": true`: status said so, install did not). A switch
    with no remedy of the person's (a policy, a folder not trusted) has its own warning. A
    dry run reads what install would write (it read the files as they were, without memidx's
    hooks, so it warned of nothing a real install would)."""
    said: list[str] = []
    found = planned_states(files) if dry_run else states_all(files)
    for state in with_hooks_off(agent, cwd, found):
        if state.hooks_off is None:
            said.extend(_skipped_said(TITLES[agent], state))
            continue
        off = switched_off(_switches(agent, cwd), state.path)
        if off is not None and off.remedy:
            said.append(f"{TITLES[agent]} runs none of memidx's hooks in {state.path}"
                        f"{_where(cwd, state.path, off.path)}: {off.path} switches its hooks"
                        f" off ({off.remedy})")  # fmt: skip
    return said


def _where(cwd: Path, hooks: Path, switch: Path) -> str:
    """` when it runs in <project>` when only the project's own settings switch off hooks of a file
    outside it (a user install's): it said they ran nowhere, and they do elsewhere."""
    root = project_root(cwd)
    only_here = switch.is_relative_to(root) and not hooks.is_relative_to(root)
    return f" when it runs in {root}" if only_here else ""


def _skipped_said(title: str, state: FileState) -> list[str]:
    """What install says of memidx's hooks the agent skips by name (Gemini CLI's
    `hooksConfig.disabled`, which `/hooks disable` writes): status named them, install not."""
    said: list[str] = []
    for path in dict.fromkeys(where for _, where in state.hooks_skipped):
        names = [hook for hook, where in state.hooks_skipped if where == path]
        them = "it" if len(names) == 1 else "them"
        said.append(f"{title} skips {', '.join(names)} in {state.path}: {path} lists {them} in"
                    f" `hooksConfig.disabled` (take {them} out of that list there)")  # fmt: skip
    return said
