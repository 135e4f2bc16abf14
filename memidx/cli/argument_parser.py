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
from itertools import takewhile
from typing import NoReturn

FILE_ARGUMENTS = frozenset({"files"})  # the positional arguments that are file names
UNRECOGNIZED = "unrecognized arguments: "


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
        if message.startswith(UNRECOGNIZED):
            self.refuse(message.removeprefix(UNRECOGNIZED).split())
        self._fail(message + close_choice(message))

    def unrecognized(self, args: argparse.Namespace, words: Sequence[str]) -> NoReturn:
        """The usage error for words that no option takes, said by the parser of the command
        that was run, the innermost (`memidx memory use`, not `memidx memory`): its usage lines
        and its name (it was the top-level parser's, `memidx [-h] ... COMMAND ...`)."""
        path: list[Parser] = [self]
        while (chosen := _chosen(path[-1], args)) is not None:
            path.append(chosen)
        path[-1].refuse(words, path[:1])  # memidx's own (`memory`'s --json is `show`'s)

    def refuse_misplaced(self, args: argparse.Namespace, words: Sequence[str]) -> None:
        """For `check`, whose other words are file names: the usage error for an option of it
        given before its name (`memidx --update-baseline check secrets` checked a file named
        `--update-baseline` and updated nothing, exit 0). Its parser reads every option it
        has, so one left over stood before it; a file named like an option was one anyway."""
        command = _chosen(self, args)
        before = [*takewhile(lambda word: word != "--", words)]
        if command is not None and (misplaced := command._misplaced(before, ())):
            argparse.ArgumentParser.error(command, f"{UNRECOGNIZED}{' '.join(words)}{misplaced}")

    def refuse(self, words: Sequence[str], outer: Sequence[Parser] = ()) -> NoReturn:
        """`unrecognized arguments: ...`, saying where an option of this command or of an
        `outer` one goes when a word is one (`memidx --json status`: it said `did you mean
        --json?` of `--json`), else the option a word is a typo of."""
        before = [*takewhile(lambda word: word != "--", words)]  # after `--`: no option
        if misplaced := self._misplaced(before, outer):  # an option, not a query's word
            super().error(f"{UNRECOGNIZED}{' '.join(words)}{misplaced}")
        self._fail(f"{UNRECOGNIZED}{' '.join(words)}{self._did_you_mean(before)}")

    def _fail(self, message: str) -> NoReturn:
        takes_query = any(a.dest == "query" and not a.option_strings for a in self._actions)
        if takes_query and (
            message.startswith(f"{UNRECOGNIZED}-")
            or (message.startswith("the following arguments are required") and "query" in message)
        ):
            message += " (a query or other word that begins with `-` goes after `--`: "
            message += "memidx search -- -fPIC)"
        super().error(message)

    def _misplaced(self, words: Sequence[str], outer: Sequence[Parser]) -> str:
        """Where a word goes that is an option of this command (unrecognized, it stood before
        the command's name, where only memidx's own options are read) or of an outer one
        (`memidx status -C DIR`: `-C` goes before `status`)."""
        name = self.prog.rsplit(" ", 1)[-1]
        for word in (one for one in words if one.startswith("-")):
            if self._is_option(word):
                return f" ({word} is an option of `{self.prog}`: it goes after `{name}`)"
            owner = next((one for one in reversed(outer) if one._is_option(word)), None)
            if owner is not None:
                return f" ({word} is an option of `{owner.prog}`: it goes before `{name}`)"
        return ""

    def _did_you_mean(self, words: Sequence[str]) -> str:
        """` (did you mean --json?)` for a word close to one of this command's long options."""
        known = [o for o in self._option_string_actions if o.startswith("--")]
        typo = next((w.split("=", 1)[0] for w in words if w.startswith("--")), None)
        return _close(typo, known)

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


def _chosen(parser: Parser, args: argparse.Namespace) -> Parser | None:
    """The sub-command's parser `parser` handed the rest of the words to, or None."""
    for action in parser._actions:  # argparse's own list
        if not action.option_strings and isinstance(action.choices, dict):
            parsers: dict[str, Parser] = action.choices  # pyright: ignore - its parser_class
            return parsers.get(getattr(args, action.dest, None) or "")
    return None


def _close(word: str | None, known: Sequence[str]) -> str:
    """` (did you mean <name>?)` when `word` is close to one of `known` (and not it)."""
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.7) if word else []
    return f" (did you mean {close[0]}?)" if close and close[0] != word else ""


def close_choice(message: str) -> str:
    """` (did you mean search?)` for argparse's invalid choice close to a real one. The choices
    are quoted up to Python 3.12.7 and 3.13.0 (`'search', 'show'`), bare from 3.12.8 and 3.13.1
    (`search, show`): read as quoted only, a typo named no command there."""
    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    return _close(found[1], [one.strip("'") for one in found[2].split(", ")]) if found else ""
