"""The command line's argument parser class: where a command takes file names, a word that
begins with `-` but is none of its options is a file name, not an unknown option. pre-commit
puts the staged names after a check's options (`memidx check english -é.md`), and a name may
begin with `-` at the top of the work tree: argparse's usage error (exit 2) blocked the commit
instead of the check's one line."""

from __future__ import annotations

import argparse
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
        """argparse's usage error; for a word that begins with `-` and is no option (a query
        such as `-fPIC`), it says how to give one."""
        if message.startswith("unrecognized arguments: -") or (
            message.startswith("the following arguments are required") and "query" in message
        ):
            message += " (a query or other word that begins with `-` goes after `--`: "
            message += "memidx search -- -fPIC)"
        super().error(message)

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
