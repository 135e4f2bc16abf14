"""Where Codex CLI's hooks and MCP servers live, and memidx's entries in them.

Hooks go to `~/.codex/hooks.json` (user) or the repository's `.codex/hooks.json` (project), in
Claude Code's shape; the MCP server to `[mcp_servers.memidx]` in the `config.toml` beside it,
as one marked block (memidx/agents/text_install.py), so every other line of the file stays as
it was. `CODEX_HOME` moves the user's files. Codex runs a hook it does not manage only once
someone has trusted it in its `/hooks` screen (or with `--dangerously-bypass-hook-trust`)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import cast

from memidx.agents.codex import EVENTS, NAME
from memidx.agents.codex_block import added_around, added_to_block, block_flags
from memidx.agents.codex_trust import (
    distrust_switch,
    elsewhere_switches,
    elsewhere_warning,
    ignored,
    untrusted_note,
    untrusted_warning,
)
from memidx.agents.entries import SERVER, command_hooks, gone, hooks_file, mcp_argv
from memidx.agents.hooks_off import Switch, toml_switch
from memidx.agents.install import ConfigFile, project_root, user_folder
from memidx.agents.json_text import BOM, LEFT_ALONE, TOO_DEEP
from memidx.agents.launcher import parse_launch
from memidx.agents.mcp_owner import mcp_flags, server_argv, unwrapped
from memidx.agents.text_install import (
    BEGIN,
    END,
    TextFile,
    closes_block,
    drop_block,
    find_block,
    kept_line_ending,
    opens_block,
    put_block,
)
from memidx.agents.toml_text import toml_string
from memidx.errors import MemidxError


def mcp_block(*, portable: bool = False, flags: Sequence[str] = ()) -> str:
    """memidx's table, its args ending with the flags of `memidx mcp` the person added."""
    argv = [*mcp_argv(portable=portable), *flags]
    args = ", ".join(toml_string(a) for a in argv[1:])
    return f"[mcp_servers.{SERVER}]\ncommand = {toml_string(argv[0])}\nargs = [{args}]\n"


def _toml(text: str) -> dict[str, object]:
    """The TOML document `text`, read past a byte-order mark first, as Codex 0.171.0 reads it
    (memidx called such a file `not valid TOML`; put_block keeps the mark first)."""
    return tomllib.loads(text.removeprefix(BOM))


# Codex 0.171.0 reads TOML 1.1 too, whose inline table may span lines (`env = {` and its
# keys on lines of their own); tomllib reads TOML 1.0 (Python before 3.15), so "fix it" was
# said of a file Codex reads
TOML_1_1 = (
    "fix it; if Codex CLI reads it, write its TOML 1.1 (`key = {` and the table's keys on"
    " lines of their own) as TOML 1.0 (on one line), which memidx reads: memidx left the file"
    " alone"
)


def _parsed(text: str, path: Path) -> dict[str, object]:
    try:
        return _toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemidxError(f"{path}: not valid TOML: {exc}", TOML_1_1) from exc
    except RecursionError as exc:
        raise MemidxError(f"{path}: {TOO_DEEP}", LEFT_ALONE) from exc


def _extends_block(text: str, servers: dict[str, object]) -> bool:
    """Whether the person's `[mcp_servers.memidx...]` lines outside memidx's block only add to
    it (`[mcp_servers.memidx.env]`: no command or url of their own)."""
    found = servers.get(SERVER)
    theirs = cast(dict[str, object], found) if isinstance(found, dict) else {}
    return find_block(text) is not None and not {"command", "url"} & set(theirs)


# memidx's server's table header, as Codex writes it back, and the header of any table
_HEADER = re.compile(rf"^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*{SERVER}[ \t]*\][ \t]*$", re.M)
_TABLE = re.compile(r"^[ \t]*\[", re.M)


def _marker(line: str) -> bool:
    return opens_block(line) or closes_block(line.rstrip("\r\n"))


def _unmarked(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not _marker(line))


def remarked(text: str) -> str:
    """`text` with memidx's `[mcp_servers.memidx]` marked as memidx's block again when Codex
    rewrote the file: its writer (`codex mcp add`, 0.171.0) drops comments, so memidx's
    `# >>> memidx` line went and its `# <<< memidx` line was left below another table. Such
    a table runs memidx's server (as a JSON agent's entry memidx wrote does) in a file that
    still holds a marker line of memidx's: install took it for the person's and stopped,
    uninstall left it, status called it hand-written. A table running memidx with flags
    memidx never writes (`--own`) stays the person's: a marker is weak evidence (`codex mcp
    remove memidx` leaves it), and install would drop the flags. Any other text as it is."""
    try:
        if find_block(text) is not None or not any(map(_marker, text.splitlines())):
            return text
    except MemidxError:  # a begin marker without its end: put right below, or named as ever
        pass
    bare = _unmarked(text)
    headers = list(_HEADER.finditer(bare))
    try:
        servers = _toml(bare).get("mcp_servers")
        server = cast(dict[str, object], servers).get(SERVER) if isinstance(servers, dict) else None
        if len(headers) != 1 or mcp_flags(unwrapped(server_argv(server))) != []:
            return text
        after = _TABLE.search(bare, headers[0].end())
        table = _table_lines(bare[headers[0].start() : after.start() if after else len(bare)])
        stop = headers[0].start() + len(table)
        marked = f"{bare[: headers[0].start()]}{BEGIN}\n{table}\n{END}{bare[stop:]}"
        if not bare[stop:]:
            marked += "\n"
        return marked if _toml(marked) == _toml(text) else text
    except tomllib.TOMLDecodeError:  # said where the file is read
        return text


def _table_lines(text: str) -> str:
    """`text` (a table up to the next one) without the blank and comment lines that end it,
    no newline last: a comment there heads what follows (the person's next table)."""
    lines = text.splitlines(keepends=True)
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return "".join(lines).removesuffix("\n")  # its characters as they are: offsets hold


def _uninstall_mcp(path: Path):
    def uninstall(text: str) -> str:
        """`text` without memidx's block; MemidxError when the person's tables outside it
        extend memidx's server: left without its command, Codex 0.171.0 loads no configuration
        at all ("invalid transport"). A marker line Codex left without memidx's table goes."""
        text = remarked(text)
        after = drop_block(text)
        servers = _parsed(after, path).get("mcp_servers") if after != text else None
        if isinstance(servers, dict) and SERVER in servers:
            raise MemidxError(
                f"{path}: [mcp_servers.{SERVER}] has lines of yours outside memidx's block"
                f" ([mcp_servers.{SERVER}.env], say), which Codex cannot load without it",
                "take them out, then uninstall again: memidx left every file alone",
            )
        return after if find_block(after) is not None else _unmarked(after)

    return uninstall


def _install_mcp(path: Path, portable: bool):
    def install(text: str) -> str:
        text = remarked(text)
        outside = drop_block(text)
        servers = _parsed(outside, path).get("mcp_servers")
        if servers is not None and not isinstance(servers, dict):
            raise MemidxError(f"{path}: mcp_servers is not a table", LEFT_ALONE)
        table = cast(dict[str, object], servers) if isinstance(servers, dict) else {}
        if SERVER in table and not _extends_block(text, table):
            raise MemidxError(
                f"{path}: already has an [mcp_servers.{SERVER}] that memidx did not add",
                "remove it, or leave it: memidx's hooks work without it",
            )
        flags = block_flags(text)
        if flags is None:
            raise MemidxError(
                f"{path}: the command and args of memidx's [mcp_servers.{SERVER}] block run"
                " something other than memidx's MCP server (yours?)",
                "delete the block to let memidx write its own, or its two marker lines to keep"
                " it as yours, then install again: memidx left every file alone",
            )
        above, below = added_around(text)
        body = above + mcp_block(portable=portable, flags=flags) + below
        after = put_block(text, body)
        try:  # never write a file Codex could not read
            _toml(after)
        except RecursionError as exc:  # the person's value in the block: it was a traceback
            raise MemidxError(f"{path}: {TOO_DEEP}", LEFT_ALONE) from exc
        except tomllib.TOMLDecodeError as exc:
            # a line of the person's in memidx's block that is no TOML stays, and the file is
            # named as such (it was blamed on an inline mcp_servers table)
            _parsed(text, path)
            raise MemidxError(  # the file is valid: memidx's table is what fails
                f"{path}: memidx cannot add [mcp_servers.{SERVER}] to it: {exc}",
                "write mcp_servers as [mcp_servers.<name>] tables, not one inline table, or add"
                " memidx's server by hand: memidx left every file alone",
            ) from exc
        return after

    return install


def _mcp_state(path: Path, root: Path | None = None):
    """What status says of `path`; `root`: the project whose `.codex/` holds it."""

    def state(text: str) -> list[str]:
        found = _state(text)
        user = user_dir() / "config.toml"
        if found and root is not None and ignored(user, root):  # codex mcp list: none
            said, note = found[0], untrusted_note(user, root)
            return [f"{said[:-1]}; {note})" if said.endswith(")") else f"{said} ({note})"]
        return found

    def _state(text: str) -> list[str]:
        """What of memidx's the file holds; MemidxError, naming it, for a file Codex could not
        read (status says so rather than "nothing of memidx")."""
        servers = _parsed(text, path).get("mcp_servers")
        if servers is not None and not isinstance(servers, dict):
            raise MemidxError(f"{path}: mcp_servers is not a table", LEFT_ALONE)
        marked = remarked(text.replace("\r\n", "\n"))
        if text and find_block(marked) is not None:  # one running a command of the person's,
            yours = block_flags(marked) is None  # which install leaves, was called memidx's
            table = cast(dict[str, object], servers) if isinstance(servers, dict) else {}
            argv = unwrapped(server_argv(table.get(SERVER)))  # a user's: by absolute path
            runs = "" if yours or parse_launch(argv) else gone([argv])  # as its hooks' says
            return [f"MCP server {SERVER}" + " (in memidx's block, running yours)" * yours + runs]
        if isinstance(servers, dict) and SERVER in servers:  # install leaves it, and says so
            return [f"MCP server {SERVER} (hand-written, not memidx's block)"]
        return []

    return state


def _edited(text: str) -> list[str]:
    """What the person changed in memidx's block, in words (uninstall removes it): flags of
    `memidx mcp` on its args (or a command of their own), the lines they added."""
    text = remarked(text)
    flags = block_flags(text)
    said = ["command, args"] if flags is None else ["args"] if flags else []
    added = [line.strip() for line in added_to_block(text).splitlines() if line.strip()]
    if added:
        said.append(f"lines {', '.join(f'`{line}`' for line in added)}")
    return [f"the MCP server's {', '.join(said)}"] if said else []


def user_dir() -> Path:
    return user_folder("CODEX_HOME", ".codex")


def config_files(scope: str, cwd: Path) -> list[ConfigFile | TextFile]:
    project = scope == "project"
    folder = project_root(cwd) / ".codex" if project else user_dir()
    toml = folder / "config.toml"
    return [
        hooks_file(folder / "hooks.json", NAME, command_hooks(NAME, EVENTS, portable=project)),
        TextFile(
            toml,
            kept_line_ending(_install_mcp(toml, project)),
            kept_line_ending(_uninstall_mcp(toml)),
            _mcp_state(toml, project_root(cwd) if project else None),
            edited=_edited,
        ),
    ]


_FEATURE = (("features", "hooks"), ("features", "codex_hooks"))  # 0.171.0's name, then the old


def hooks_switches(cwd: Path) -> list[Switch]:
    """Where Codex CLI reads its `hooks` feature (`[features] hooks = false`: no hooks run),
    highest precedence first: the project's `.codex/config.toml`, which Codex 0.171.0 reads
    only in a project the user trusts (memidx/agents/codex_trust.py), then the user's. In a
    project not trusted, the user's config.toml switches off the project's hooks."""
    user, root = user_dir() / "config.toml", project_root(cwd)
    first = (
        distrust_switch(user, root)
        if ignored(user, root)
        else toml_switch(root / ".codex" / "config.toml", _FEATURE, False)
    )
    return [*elsewhere_switches(root), first, toml_switch(user, _FEATURE, False)]


def install_warnings(cwd: Path, planned: Collection[Path] = ()) -> list[str]:
    """What install says besides: that Codex ignores the project's .codex/ (not trusted), or
    the hooks in a git worktree's; a dry run's `planned` files as if written (it said none)."""
    root, user = project_root(cwd), user_dir() / "config.toml"
    said = untrusted_warning(user, root, planned), elsewhere_warning(root, planned)
    return [one for one in said if one]
