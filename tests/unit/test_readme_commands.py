"""The README is the user's manual: every command, sub-command and long option that
`memidx --help` and each `memidx COMMAND --help` list is named in it (`check --remedy`,
`memidx --version` and `memidx memory --json` were not)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from memidx.cli.parser import build_parser

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
SCHEMAS = README[README.index("Every `--json` output carries its `schema`") :][:2000]


def surface(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[str]:
    """`memidx ...` and the option or choice, for every command and option argparse knows."""
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            choices: dict[str, argparse.ArgumentParser] = action.choices  # pyright: ignore
            for name, sub in choices.items():
                yield " ".join(("memidx", *path, name))
                yield from surface(sub, (*path, name))
        elif action.option_strings and action.dest != "help":
            long = [o for o in action.option_strings if o.startswith("--")]
            yield " ".join(("memidx", *path, long[0] if long else action.option_strings[0]))
        elif action.choices and path:
            yield from (" ".join(("memidx", *path, str(c))) for c in action.choices)


def documented(entry: str) -> bool:
    """`memidx check --remedy` is documented when the README names `--remedy` within a few
    lines of `check`; a choice (`cursor`) when it is backquoted; `--json` when the list of
    schemas names the command."""
    words = entry.split(" ")
    name, last = words[-2], words[-1]
    if entry in README or (not last.startswith("-") and f"`{last}`" in README):
        return True
    if last == "--json" and f"`{name}`" in SCHEMAS:
        return True
    word = r"(?<![\w-]){}(?![\w-])"
    one, other = word.format(re.escape(name)), word.format(re.escape(last))
    span = r"[^\n]*(?:\n[^\n]*){0,8}?"
    return re.search(f"{one}{span}{other}|{other}{span}{one}", README) is not None


def test_every_command_and_option_of_the_help_is_in_the_readme() -> None:
    missing = [entry for entry in surface(build_parser()) if not documented(entry)]
    assert missing == [], missing
