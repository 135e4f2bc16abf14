"""The parser's commands that read the memory: `search` and `show`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from memidx.cli import parser_connect

if TYPE_CHECKING:
    from memidx.cli.parser import Commands


def search_commands(commands: Commands) -> None:
    """Add `memidx search` and `memidx show` to the parser."""
    command, json_flag = commands.add, parser_connect.json_flag
    p = command("search", "search notes and records, best match first", "search:search")
    p.add_argument("query", nargs="+", help="words to search for")
    p.add_argument(
        "-k",
        "--limit",
        type=_positive,
        default=10,
        help=f"hits to show (default 10, at most {MAX_HITS})",
    )
    p.add_argument(
        "--mode",
        choices=("auto", "hybrid", "bm25", "vector"),
        default="auto",
        help="auto (default): hybrid when vectors exist, else bm25",
    )
    p.add_argument(
        "--kind",
        choices=("note", "turn", "transcript", "fact"),  # notes, and memidx.haystack.frames.KINDS
        help="only documents of this kind",
    )
    p.add_argument("--tag", help="only documents with this tag")
    p.add_argument("--path", help="only documents whose ref starts with this prefix")
    p.add_argument("--drawer", help="only records filed in this drawer")
    p.add_argument("--agent", help="only records of this agent")
    p.add_argument("--since", help="only records (and dated notes) from this local date or time on")
    p.add_argument(
        "--until", help="only records (and dated notes) up to the end of this local day or time"
    )
    p.add_argument(
        "--timings",
        action="store_true",
        help="print where the time went (stderr; with --json also in the output)",
    )
    json_flag(p, "the stable JSON schema (memidx.search/1)")

    p = command("show", "print a record's text (--json: verbatim)", "search:show")
    p.add_argument("ref", help="a record's ref (<segment>@<offset>, as hits show) or its id")
    json_flag(p, "the whole record")


MAX_HITS = 1000


def _positive(text: str) -> int:
    value = int(text) if text.isascii() and text.isdigit() and len(text) <= 6 else 0
    if not 0 < value <= MAX_HITS:
        shown = text.encode("utf-8", "backslashreplace").decode()
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 1 to {MAX_HITS}, got {shown!r}"
        )
    return value
