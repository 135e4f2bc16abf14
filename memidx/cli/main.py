"""The `memidx` command: dispatch and error reporting. The argument parser (memidx/cli/parser.py)
is built for every command but the hooks' (`hook`, `check all` and a few more), which git runs
and must start fast; the handlers (memidx/cli/*_command*.py) are imported only when their
command runs: search must not pay for git, YAML or the model, --help not for anything."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from memidx.cli.check_all import check_all_arguments
from memidx.cli.fast_path import check_call, fast_path, hook_call
from memidx.config import Config, load_config
from memidx.errors import REBUILD_HINT, ConfigError, MemidxError, UsageError, missing_module
from memidx.text import is_utf8

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    import argparse
    from typing import NoReturn

Handler = Callable[["argparse.Namespace", Config], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Run memidx with `argv`; return the exit code."""
    try:
        return _main(argv)
    except ModuleNotFoundError as exc:  # the hooks' fast paths and the parser's imports too
        if (missing := missing_module(exc.name)) is None:
            raise
        print(f"memidx: error: {missing}", file=sys.stderr)
        return 1


def _main(argv: Sequence[str] | None) -> int:
    _closed_streams_stand_empty()
    _escape_what_stdout_cannot_encode()
    fast = fast_path(sys.argv[1:] if argv is None else argv)
    if fast is not None:
        return fast
    import sqlite3  # after the hooks: ~3 ms of every prompt hook, which never opens the index

    try:  # `check all` at every commit: without the parser
        args = check_all_arguments(sys.argv[1:] if argv is None else argv) or _parse(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    directory = Path(args.directory) if args.directory else None
    index: Path | None = None  # named in the errors of SQLite that reach this far
    root: Path | None = None  # the memory's folder: gone meanwhile, said so
    if args.command == "hook":  # must never fail the git operation, whatever happens
        from memidx.githooks.hook import run_hook, stage_from_environment

        return run_hook(directory, args.stage or stage_from_environment(), args.hook_args)
    try:
        _refuse_non_text(args)
        _refuse_missing(directory)
        if args.command == "memory":  # works where no memory answers yet
            from memidx.cli.memory_command import memory

            return memory(args, directory)
        config = _config(args.command, directory)
        index, root = config.index_path, config.root
        return _handler(args.handler)(args, config)
    except UsageError as exc:
        print(f"memidx: usage error: {exc}", file=sys.stderr)
        return 2
    except MemidxError as exc:
        print(f"memidx: error: {exc}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:  # damage the opening checks could not see, or a full disk
        from memidx.index.connection import trouble

        passing = trouble(exc, index)
        problem = passing or f"the index is unusable: {exc} ({REBUILD_HINT})"
        print(f"memidx: error: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("memidx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        from memidx.cli.os_error import os_error_line

        print(f"memidx: error: {os_error_line(exc, root)}", file=sys.stderr)
        return 1


def _closed_streams_stand_empty() -> None:
    """A process started with its standard input or output closed (`<&-`, `>&-`) has no
    sys.stdin or sys.stdout: status, show and people's search died writing to it, remember and
    file-turn reading from it, each in a traceback. Closed output discards what is printed, as
    print() does; closed input reads as empty, which each command answers in its one line."""
    if sys.stdout is None:  # pyright: ignore[reportUnnecessaryComparison] - None when fd 1 is closed
        sys.stdout = Path(os.devnull).open("w", encoding="utf-8")  # noqa: SIM115 - the process's
    if sys.stdin is None:  # pyright: ignore[reportUnnecessaryComparison] - None when fd 0 is closed
        sys.stdin = Path(os.devnull).open(encoding="utf-8")  # noqa: SIM115 - the process's


def _escape_what_stdout_cannot_encode() -> None:
    """A standard output that is not UTF-8 (PYTHONIOENCODING=ascii, a cp1252 pipe) gets
    `\\uXXXX` for each character it cannot encode: valid JSON inside --json's strings (the only
    place such a character stands in JSON), readable in people's output. It raised
    UnicodeEncodeError, a traceback after the work was done."""
    import io

    stream = sys.stdout
    if not isinstance(stream, io.TextIOWrapper):
        return  # none, or captured in memory (never encoded)
    if stream.encoding.lower().replace("_", "-") in ("utf-8", "utf8"):
        return
    import codecs

    codecs.register_error(JSON_ESCAPES, _json_escapes)
    stream.reconfigure(errors=JSON_ESCAPES)


JSON_ESCAPES = "memidx-json-escapes"


def _json_escapes(error: UnicodeError) -> tuple[str, int]:
    """`\\uXXXX` for each character that could not be encoded (a pair for one past U+FFFF)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    escaped: list[str] = []
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            escaped.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{code:04x}")
    return "".join(escaped), error.end


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """parse_args, except that `check` also takes files after its options: pre-commit runs
    `<entry> <args> <files>`, and argparse fills a `nargs="*"` positional at its first chance,
    before the options, so the files after them were unrecognized arguments (exit 2). None of
    them is an option, even one that begins with `-` (memidx/cli/argument_parser.py)."""
    from memidx.cli.parser import build_parser

    args, extra = (parser := build_parser()).parse_known_args(argv)
    if extra == ["--"]:  # a bare `--` ends the options: Python 3.11 left it over for a command
        extra = []  # that takes no words (`memidx status --`), newer ones take it as argparse does
    if extra and args.command == "check":
        parser.refuse_misplaced(args, extra)
        args.files = [*args.files, *extra]
    elif extra:
        parser.unrecognized(args, extra)
    return args


# Commands about the git repository they run in (pre-commit runs `memidx check ...` and
# `memidx hook` there), never the user's memory elsewhere.
REPOSITORY_COMMANDS = frozenset({"check", "hooks"})


def _refuse_missing(directory: Path | None) -> None:
    """-C must name a folder: never a new memory by a typo. A path is well formed, so one
    naming nothing is an error (1), as MEMIDX_ROOT's and show's refs are, not a usage error."""
    if directory is not None and not directory.is_dir():
        said = "a file, not a folder" if directory.exists() else "no such folder"  # (a file too)
        raise ConfigError(f"-C {directory}: {said}", "give the memory's folder")


def _config(command: str, directory: Path | None) -> Config:
    """The configuration of the memory that answers; the repository commands (REPOSITORY_
    COMMANDS) answer for the repository they run in, as if given -C."""
    if directory is None and command in REPOSITORY_COMMANDS:
        directory = Path.cwd()  # git runs them for the repository it works in
    return load_config(directory)


# Arguments that name files may be any bytes the file system allows (`check` names the ones
# that are not UTF-8 itself); all others are text.
PATH_ARGUMENTS = frozenset({"directory", "file", "files", "folder", "message"})


def _refuse_non_text(args: argparse.Namespace) -> None:
    """A usage error naming the first argument that is not UTF-8 (argv's undecodable bytes
    arrive as lone surrogates)."""
    for name, value in vars(args).items():
        if name in PATH_ARGUMENTS:
            continue
        items: list[object] = list(value) if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownArgumentType]
        for item in items:
            if isinstance(item, str) and not is_utf8(item):
                shown = "the query" if name == "query" else f"--{name.replace('_', '-')}"
                raise UsageError(f"{shown} is not valid UTF-8 text", "pass text in UTF-8")


def run_module() -> NoReturn:
    """`python -m memidx`, which is how the git hooks run memidx (hooks/memidx-hook)."""
    argv = sys.argv[1:]
    code = main(argv)
    if hook_call(argv) or check_call(argv, "--message") or check_call(argv, "--push"):
        # Interpreter teardown costs ~7 ms on every git operation; the hook has closed the
        # index and its files by now, so only the standard streams need flushing.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # closed by the reader
                stream.flush()
        os._exit(code)
    raise SystemExit(code)


# The parser names a handler `group:function`; each group's module is imported only when it runs.
HANDLER_MODULES = {
    "search": "search_command",
    "index": "index_commands",
    "embed": "embed_commands",
    "memory": "write_commands",
    "check": "check_commands",
    "agent": "agent_command",
    "forget": "forget_commands",
    "mcp": "mcp_command",
    "user": "memory_command",
}


def _handler(name: str) -> Handler:
    import importlib
    from typing import cast

    group, _, function = name.partition(":")
    module = importlib.import_module(f"memidx.cli.{HANDLER_MODULES[group]}")
    return cast(Handler, getattr(module, function))
