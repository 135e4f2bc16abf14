"""Where Hermes Agent's memory provider is set: the plugin in `$HERMES_HOME/plugins/memidx/`
(`__init__.py` and `plugin.yaml`, memidx's own files) and `memory.provider: memidx` in
`$HERMES_HOME/config.yaml` (`~/.hermes` unless HERMES_HOME is set), edited as text so every
other line and comment stays: the line memidx changed carries the one it replaced."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import cast

import yaml

from memidx.agents.entries import GONE, REINSTALL
from memidx.agents.hermes_plugin import MANIFEST, plugin_source
from memidx.agents.install import memidx_argv, user_folder
from memidx.agents.json_text import LEFT_ALONE, TOO_DEEP
from memidx.agents.text_install import (
    TextFile,
    drop_block,
    kept_line_ending,
    own_file,
    put_block,
)
from memidx.errors import MemidxError

WAS = "  # memidx: was "
ADDED = "  # memidx: added"
TOP = re.compile(r"^\ufeff?memory:\s*(#.*)?$")  # after a byte-order mark too: Hermes reads past it


def hermes_home() -> Path:
    return user_folder("HERMES_HOME", ".hermes")


def _loaded(text: str, path: Path) -> object:
    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise MemidxError(f"{path}: not valid YAML: {exc}", LEFT_ALONE) from exc
    except RecursionError as exc:
        raise MemidxError(f"{path}: {TOO_DEEP}", LEFT_ALONE) from exc


def _provider(text: str, path: Path) -> object:
    loaded = _loaded(text, path)
    memory = cast(dict[str, object], loaded).get("memory") if isinstance(loaded, dict) else None
    return cast(dict[str, object], memory).get("provider") if isinstance(memory, dict) else None


def _with_provider(loaded: object) -> object:
    """The settings `loaded` with memory.provider memidx, all else as it was (None when
    `memory` is no mapping to set it in)."""
    if not isinstance(loaded, dict):
        return None
    doc = cast(dict[str, object], loaded)
    memory = doc.get("memory")
    if memory is not None and not isinstance(memory, dict):
        return None
    return {**doc, "memory": {**cast(dict[str, object], memory or {}), "provider": "memidx"}}


def _install(path: Path):
    def install(text: str) -> str:
        text = _uninstall(text)
        if _provider(text, path) == "memidx":  # the person set it: theirs, uninstall keeps it
            return text
        lines = text.splitlines(keepends=True)
        top = next((i for i, line in enumerate(lines) if TOP.match(line.rstrip("\n"))), None)
        if top is None:
            after = put_block(text, "memory:\n  provider: memidx\n")
        else:
            after = "".join(_set_provider(lines, top))
        # a `memory` memidx cannot edit in place (a flow mapping, a quoted key) got a second
        # `memory:` after it, which YAML readers take in place of the person's whole mapping
        if _loaded(after, path) != _with_provider(_loaded(text, path)):
            raise MemidxError(
                f"{path}: memidx cannot set memory.provider: memidx in it without changing"
                " other settings",
                "set it by hand, then install again: memidx left every file alone",
            )
        return after

    return install


def _set_provider(lines: list[str], top: int) -> list[str]:
    end, indent = len(lines), "  "
    for i in range(top + 1, len(lines)):
        body = lines[i].rstrip("\n")
        if body.strip() and not body.lstrip().startswith("#"):
            if not body.startswith((" ", "\t")):
                end = i
                break
            indent = body[: len(body) - len(body.lstrip())] if indent == "  " else indent
    for i in range(top + 1, end):
        if re.match(rf"^{re.escape(indent)}provider\s*:", lines[i]):
            old = lines[i].rstrip("\n")
            lines[i] = f"{indent}provider: memidx{WAS}{old.strip()}\n"
            return lines
    return [*lines[: top + 1], f"{indent}provider: memidx{ADDED}\n", *lines[top + 1 :]]


def _own_line(line: str) -> bool:
    """Whether a line (without its ending) is one memidx set in the person's `memory:`."""
    return "provider: memidx" in line and (line.endswith(ADDED) or WAS in line)


def _uninstall(text: str) -> str:
    kept: list[str] = []
    for line in drop_block(text).splitlines(keepends=True):
        if line.rstrip("\n").endswith(ADDED) and "provider: memidx" in line:
            continue
        if WAS in line and "provider: memidx" in line:
            indent = line[: len(line) - len(line.lstrip())]
            kept.append(indent + line.rstrip("\n").split(WAS, 1)[1] + "\n")
            continue
        kept.append(line)
    return "".join(kept)


def _state(path: Path):
    def state(text: str) -> list[str]:
        """memidx's provider setting; MemidxError, naming the file, for one Hermes could not
        read (status says so rather than "nothing of memidx")."""
        return ["memory.provider: memidx"] if _provider(text, path) == "memidx" else []

    return state


def _said_gone(plugin: TextFile) -> TextFile:
    """The plugin's state, naming the memidx it runs when that is gone (its clone moved or
    deleted): Hermes then finds the provider unavailable and recalls nothing, while status
    said only `plugin memidx (outdated)`, as for an older memidx's plugin that still runs."""

    def installed(text: str) -> list[str]:
        found = re.search(r"^MEMIDX = (\[.*\])$", text, re.MULTILINE)
        try:
            argv: object = ast.literal_eval(found[1]) if found else None
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            argv = None
        program = argv[0] if isinstance(argv, list) and argv else None  # pyright: ignore[reportUnknownVariableType]
        if isinstance(program, str) and Path(program).is_absolute() and not Path(program).exists():
            return [f"plugin memidx (it runs {program}{GONE}{REINSTALL})"]
        return plugin.installed(text)

    return TextFile(
        plugin.path, plugin.install, plugin.uninstall, installed, plugin.whole, plugin.content
    )


def config_files(scope: str, cwd: Path) -> list[TextFile]:
    """Hermes has one configuration, the user's: `--scope` does not move it."""
    home = hermes_home()
    plugin = home / "plugins" / "memidx"
    config = home / "config.yaml"
    return [
        _said_gone(own_file(plugin / "__init__.py", plugin_source(memidx_argv()), "plugin memidx")),
        own_file(plugin / "plugin.yaml", MANIFEST, "plugin manifest", MANIFEST.split("\n")[0]),
        TextFile(
            config,
            kept_line_ending(_install(config), _own_line),
            kept_line_ending(_uninstall, _own_line),
            _state(config),
        ),
    ]
