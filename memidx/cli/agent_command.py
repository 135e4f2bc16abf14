"""`memidx agent install|uninstall|status|serve`: memidx in coding agents' hooks and MCP
configuration. (`memidx agent hook` is dispatched before argparse: memidx/agents/runner.py.)"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memidx.config import Config
from memidx.text import display

if TYPE_CHECKING:
    from memidx.agents.finish_left import Finished
    from memidx.agents.install import FileState


def agent(args: argparse.Namespace, config: Config) -> int:
    if args.action == "finish-archives":  # no agent named: every agent's
        return _finish_archives(args, config)
    args.agent = args.agent or "claude-code"
    if args.action == "hook":  # reached past the fast path only by a spelling like -CDIR
        from memidx.agents.runner import run_hook_arguments

        arguments = [a for a in (args.agent, args.event) if a]
        return run_hook_arguments(arguments, Path(args.directory) if args.directory else None)
    if args.action == "serve":
        from memidx.agents.recall_server import serve

        return serve(config)
    from memidx.agents.install import describe
    from memidx.agents.installers import (
        apply_all,
        config_files,
        hooks_off_warnings,
        install_warnings,
    )

    if args.action == "status":
        return _status(args)
    remove = args.action == "uninstall"
    scope = _scope(args)
    files = config_files(args.agent, scope, _cwd(args))
    done = apply_all(files, remove=remove, dry_run=args.dry_run)
    if not remove:
        _warn_unless_reached(config)
        planned = [one.path for one in files] if args.dry_run else []
        warnings = install_warnings(args.agent, _cwd(args), planned)
        warnings += hooks_off_warnings(args.agent, _cwd(args), files, dry_run=args.dry_run)
        for warning in warnings:
            sys.stderr.write(f"memidx: warning: {warning}\n")
        if scope == "project" and not args.dry_run:
            _warn_unless_found()
            _warn_if_user_file(args.agent, _cwd(args))
    if args.json:
        print(json.dumps({
            "schema": "memidx.agent-install/1", "dry_run": args.dry_run,
            "files": [
                {"path": str(d.path), "changed": d.changed,
                 "backup": None if d.backup is None else str(d.backup), "notes": [*d.notes]}
                for d in done
            ],
        }, indent=2))  # fmt: skip
    else:
        for line in describe(done, remove=remove, dry_run=args.dry_run):
            print(line)
    return 0


def _finish_archives(args: argparse.Namespace, config: Config) -> int:
    """File what hooks cut off before a compaction left, with each part said on a terminal."""
    from memidx.agents.finish_left import finish_all

    def tell(line: str) -> None:
        print(f"memidx: {line}", file=sys.stderr, flush=True)

    done = finish_all(config, tell if sys.stderr.isatty() else None, agent=args.agent)
    if args.json:
        print(json.dumps({
            "schema": "memidx.archives-finished/1",
            "sessions": [
                {"agent": d.agent, "session": d.session, "project": d.project,
                 "transcripts": d.transcripts, "parts": d.parts, "torn": d.torn,
                 "left": d.left, "kept_aside": [*d.kept_aside],
                 "unreadable": [{"path": path, "error": why} for path, why in d.unreadable]}
                for d in done
            ],
        }, indent=2))  # fmt: skip
    else:
        transcripts, parts = sum(d.transcripts for d in done), sum(d.parts for d in done)
        print(f"{transcripts} transcript{'s' * (transcripts != 1)} archived "
              f"({parts} part{'s' * (parts != 1)} filed now)" if done
              else "no transcript left to archive")  # fmt: skip
    return _said_unfinished(done)


def _said_unfinished(done: list[Finished]) -> int:
    """One line on stderr for each copy not archived, naming it and what to do; 1 if any."""
    left = sum(d.left for d in done)
    if left:
        print(f"memidx: error: {left} transcript cop{'ies' if left != 1 else 'y'} left: no id "
              "of its session is known (an older memidx's copy; its session's next hook event "
              "files it)", file=sys.stderr)  # fmt: skip
    for path, why in [pair for d in done for pair in d.unreadable]:  # the others went on
        print(f"memidx: error: {display(path)}: cannot be read ({why}), left as it is (make "
              "it readable or move it away, then run memidx agent finish-archives again)",
              file=sys.stderr)  # fmt: skip
    for path in [path for d in done for path in d.kept_aside]:
        # a torn copy is the person's transcript all the same: kept aside, never deleted
        print(f"memidx: error: {display(path)}: a transcript copy torn (its hash differs "
              "from its name's), kept aside unfiled (the agent's own transcript file may "
              "still hold it: file that with memidx archive-transcript, then delete this "
              "copy)", file=sys.stderr)  # fmt: skip
    return 1 if any(d.left or d.torn or d.unreadable for d in done) else 0


def _scope(args: argparse.Namespace) -> str:
    """The scope asked for, project by default. Hermes has one configuration, the user's: a
    `--scope project` typed is said to mean it (it was done in silence), the default is not
    (it warned of a flag never typed), and neither takes a project install's warnings."""
    if args.agent != "hermes":
        return args.scope or "project"
    if args.scope == "project":
        from memidx.agents.hermes_install import hermes_home

        print("memidx: warning: Hermes has no project scope: --scope project means the user's "
              f"configuration, in {hermes_home()}", file=sys.stderr)  # fmt: skip
    return "user"


def _status(args: argparse.Namespace) -> int:
    """What of memidx's each agent file holds; 1 when a file could not be read or runs a memidx
    that is not there (a problem found, as a check's), after every file is reported."""
    from memidx.agents.entries import runs_no_memidx
    from memidx.agents.install import SCOPES, project_root
    from memidx.agents.installers import AGENTS, config_files, states_all, with_hooks_off

    found: list[tuple[str, str, FileState]] = []
    for name in AGENTS:
        for scope in SCOPES:
            files = config_files(name, scope, _cwd(args))
            for state in with_hooks_off(name, _cwd(args), states_all(files)):
                if all(state.path != seen.path for _, _, seen in found):
                    found.append((name, scope, state))
    broken = sum(state.unreadable is not None for _, _, state in found)
    stranded = sum(runs_no_memidx(state.installed) for _, _, state in found)
    project = project_root(_cwd(args))
    if args.json:
        print(json.dumps({
            "schema": "memidx.agents/1", "healthy": not broken and not stranded,
            "files": [
                {"agent": name, "scope": scope, "path": str(state.path),
                 "installed": _installed(state, name, scope, project),
                 "unreadable": state.unreadable,
                 "hooks_off": None if state.hooks_off is None else str(state.hooks_off),
                 "hooks_skipped": [{"hook": hook, "file": str(path)}
                                   for hook, path in state.hooks_skipped]}
                for name, scope, state in found
            ],
        }, indent=2))  # fmt: skip
    for name, scope, state in [] if args.json else found:
        said: list[str] = []
        for item in _installed(state, name, scope, project):  # the switch after the hooks
            said.append(item)
            if item.startswith("hooks: "):
                said.extend(off_notes(state))
        what = "; ".join(said) or "nothing of memidx"
        print(f"{name} ({scope}) {state.path}: {what}")
    if broken:
        files = "file" if broken == 1 else "files"
        sys.stderr.write(
            f"memidx: {broken} agent configuration {files} could not be read (fix or move "
            f"{'it' if broken == 1 else 'them'}, then run `memidx agent status` again)\n"
        )
    if stranded:  # healthy said true, exit 0, while the agent's every hook call failed
        files = "file runs" if stranded == 1 else "files run"
        sys.stderr.write(
            f"memidx: {stranded} agent configuration {files} a memidx that is not there: "
            "the agent's every call of it fails (run the install its line names, then "
            "`memidx agent status` again)\n"
        )
    return 1 if broken or stranded else 0


def off_notes(state: FileState) -> list[str]:
    """What status says of memidx's hooks in a file that the agent does not run: all of them
    (switched off), or some by name (Gemini CLI's `hooksConfig.disabled`)."""
    from memidx.agents.hooks_off import off_note

    said = [] if state.hooks_off is None else [off_note(state.hooks_off, state.hooks_off_why)]
    said = [state.hooks_off_note] if state.hooks_off_note else said
    files = list(dict.fromkeys(path for _, path in state.hooks_skipped))
    for path in files:
        hooks = [hook for hook, where in state.hooks_skipped if where == path]
        are = "is" if len(hooks) == 1 else "are"
        said.append(f"installed, but {', '.join(hooks)} {are} switched off in {path}")
    return said


def _installed(state: FileState, agent: str, scope: str, project: Path) -> list[str]:
    """The file's `installed` entry, as before `unreadable` was its own field; the install it
    says to run again names the file's agent and scope (it said `memidx agent install`, which
    installs Claude Code's hooks in the project, for a Codex or a user file too), and, for a
    project's file, the project to run it in (it said "from your memory's clone", which put
    the hooks in the clone's own project and left this one's running a memidx that is gone)."""
    from memidx.agents.entries import REINSTALL

    if state.unreadable is not None:
        return [f"unreadable: {state.unreadable}"]
    if scope == "user":
        flag = "" if agent == "hermes" else " --scope user"
        again = REINSTALL.replace("install`", f"install {agent}{flag}`")
    else:  # a project install names no clone's path: any memidx, run in the project
        again = f"run `memidx agent install {agent}` again in {project}"
    return [item.replace(REINSTALL, again) for item in state.installed]


def _warn_unless_reached(config: Config) -> None:
    """Say so when the hooks, run from the agent's projects, would not reach this memory: they
    find it as every command does, and the agent passes neither -C nor, as a rule,
    MEMIDX_ROOT, so it must be the memory recorded in the user configuration."""
    from memidx.errors import MemidxError
    from memidx.locations import user_config_path

    path = user_config_path()
    try:
        recorded = _recorded(path)
    except MemidxError as exc:
        recorded, problem = None, f" ({exc})"
    else:
        problem = ""
    if recorded is not None and recorded == config.root.resolve():
        return
    records = f"records {recorded}" if recorded is not None else "records no memory"
    sys.stderr.write(
        f"memidx: warning: the hooks reach the memory recorded in {path}, which {records}"
        f"{problem}, not {config.root}: run `memidx memory use {config.root}` (or set"
        " MEMIDX_ROOT where the agent runs)\n"
    )


def _warn_unless_found() -> None:
    """A project install runs the memidx on PATH, else `make install`'s link: say so when this
    person has neither, for whom the hooks would do nothing."""
    from memidx.agents.entries import nothing_runs, unreached_link

    link = unreached_link()
    if link is not None:
        sys.stderr.write(
            f"memidx: warning: the project's hooks and MCP server: {nothing_runs(link)}\n"
        )


def _warn_if_user_file(agent: str, cwd: Path) -> None:
    """A project install in the home folder (or a dotfiles repository around it) writes the
    user's own files: say that it replaced a user install's entries there, and how to undo it."""
    from memidx.agents.installers import shared_user_file

    path = shared_user_file(agent, cwd)
    if path is not None:
        sys.stderr.write(
            f"memidx: warning: {path} is {agent}'s user file too: its entries are now the"
            " project's (memidx on PATH, else `make install`'s link), in place of a user"
            f" install's; `memidx agent install {agent} --scope user` puts those back\n"
        )


def _recorded(path: Path) -> Path | None:
    from memidx.locations import recorded_memory

    found = recorded_memory(path)
    return None if found is None else found.resolve()


def _cwd(args: argparse.Namespace) -> Path:
    return Path(args.directory) if args.directory else Path.cwd()
