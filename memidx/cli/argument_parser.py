"""The command line's argument parser class: where a command takes file names, a word that
begins with `-` but is none of its options is a file name, not an unknown option. pre-commit
puts the staged names after a check's options (`memidx check english -é.md`), and a name may
begin with `-` at the top of the work tree: argparse's usage error (exit 2) blocked the commit
instead of the check's one line."""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence
from typing import NoReturn

FILE_ARGUMENTS = frozenset({"files"})  # the positional arguments that are file names


class Parser(argparse.ArgumentParser):
    """argparse's parser, file names never taken for options (subcommands get the same)."""

    def _parse_optional(
        self, arg_string: str
    ) -> tuple[argparse.Action | None, str, str | None] | None:
        if self._takes_files() and arg_string.startswith("-") and not self._is_option(arg_string):
            return None  # a positional: a file name
        return super()._parse_optional(arg_string)

    def error(self, message: str) -> NoReturn:
        """argparse's usage error, with the name meant when a word is a typo of one (`--jsn`,
        `serch`); for a word that begins with `-` and is no option of `search` (a query such
        as `-fPIC`), it says how to give one (other commands take no query: `status --jsn` was
        told to put it after `--`)."""
        message += self._did_you_mean(message)
        takes_query = any(a.dest == "query" and not a.option_strings for a in self._actions)
        if takes_query and (
            message.startswith("unrecognized arguments: -")
            or (message.startswith("the following arguments are required") and "query" in message)
        ):
            message += " (a query or other word that begins with `-` goes after `--`: "
            message += "memidx search -- -fPIC)"
        super().error(message)

    def unrecognized(self, command: str, words: Sequence[str]) -> NoReturn:
        """The usage error for words that no option of `command` takes, said by that command's
        parser: its usage lines and its name (it was the top-level parser's, `memidx [-h] ...
        COMMAND ...`, whichever command it was)."""
        for action in self._actions:
            if not action.option_strings and isinstance(action.choices, dict):
                parsers: dict[str, argparse.ArgumentParser] = action.choices  # pyright: ignore
                if command in parsers:
                    parsers[command].error(f"unrecognized arguments: {' '.join(words)}")
        self.error(f"unrecognized arguments: {' '.join(words)}")

    def _did_you_mean(self, message: str) -> str:
        """` (did you mean --json?)` for an unknown option or a choice close to a real one."""
        if message.startswith("unrecognized arguments: "):
            words = message.removeprefix("unrecognized arguments: ").split()
            known = [o for o in self._option_string_actions if o.startswith("--")]
            typo = next((w for w in words if w.startswith("--")), None)
            word = typo.split("=", 1)[0] if typo else None
        else:
            found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
            word = found[1] if found else None
            known = re.findall(r"'([^']*)'", found[2]) if found else []
        close = difflib.get_close_matches(word, known, n=1, cutoff=0.7) if word else []
        return f" (did you mean {close[0]}?)" if close else ""

    def _takes_files(self) -> bool:
        return any(not a.option_strings and a.dest in FILE_ARGUMENTS for a in self._actions)

    def _is_option(self, arg_string: str) -> bool:
        """`--`, one of the options, or a long one abbreviated, with or without `=VALUE`."""
        name = arg_string.split("=", 1)[0]
        options = self._option_string_actions
        return (
            arg_string == "--"
            or name in options
            or (name.startswith("--") and any(o.startswith(name) for o in options))
        )
