"""memidx's `[mcp_servers.memidx]` block in Codex CLI's config.toml, read a key at a time (pure):
the lines memidx writes again at each install (its table's header, command and args, however
many lines a value spans), the person's (any other line of the block, and a comment on or
inside memidx's lines), and the flags of `memidx mcp` the person added to its args (`--own`),
which installing again keeps, as the JSON agents' entries keep them."""

from __future__ import annotations

import re
import tomllib
from typing import cast

from memidx.agents.entries import SERVER
from memidx.agents.json_text import BOM
from memidx.agents.mcp_owner import mcp_flags, server_argv, unwrapped
from memidx.agents.text_install import find_block

_OWN_KEYS = ("command", "args")  # memidx's keys in its table: any other is the person's


def _block(text: str) -> str | None:
    found = find_block(text)
    return None if found is None else text[found[0] : found[1]]


def added_to_block(text: str) -> str:
    """The lines the person added to memidx's block (`startup_timeout_sec`, an `env` table, a
    comment), each comment on memidx's own lines as a line of its own."""
    return "".join(added_around(text))


def added_around(text: str) -> tuple[str, str]:
    """The lines the person added to memidx's block above memidx's table header (which TOML
    reads in the table before the block, or at the top: installing again keeps them there;
    they went into memidx's table, `model = "o3"` made no setting of Codex's) and below it.
    Read one TOML key and value (or table header) at a time, however many lines it spans: a
    line of a value that looks like memidx's (`args = 1` in the person's multi-line string) is
    no line of memidx's, nor does a line there that starts with `[` end memidx's table (the
    first went, unsaid; the second made memidx's own command and args the person's, and
    install refused)."""
    block = _block(text)
    lines = [] if block is None else _LINE.findall(block)[1:-1]
    above: list[str] = []
    added: list[str] = []
    ours = None  # in memidx's table: its command and args are memidx's to write again
    at = 0
    while at < len(lines):
        span = _value_span(lines, at)
        read = _read(lines[at : at + span])
        header = lines[at].lstrip().startswith("[")
        ours = read == {"mcp_servers": {SERVER: {}}} if header else ours  # a table of yours first
        if ours is None:
            above.extend(lines[at : at + span])
        elif not (ours and (header or _own(read, lines[at]))):
            added.extend(lines[at : at + span])
        else:
            added.extend(f"{note}\n" for one in lines[at : at + span] if (note := comment(one)))
        at += span
    return "".join(above), "".join(added)


_OPENS = re.compile(r"\[|\"\"\"|'''")  # what a value over several lines starts with
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")  # a line and its \n (splitlines cuts at U+2028 too)


def _own(read: dict[str, object] | None, line: str) -> bool:
    """Whether a key and value of memidx's table (`read`, from `line` on) is its command or
    args; one that is no TOML by the line's start (an earlier memidx wrote a path's emoji as
    `\\ud83d\\ude00`, which TOML forbids: installing again writes it anew)."""
    if read is None:
        return _OWN_LINE.match(line) is not None
    return len(read) == 1 and next(iter(read)) in _OWN_KEYS


_OWN_LINE = re.compile(r'[ \t]*"?(command|args)"?[ \t]*=')
_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_STARTS = re.compile(rf"[ \t]*(?:\[|{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*[ \t]*=)")  # header, key


def _read(lines: list[str]) -> dict[str, object] | None:
    try:
        return tomllib.loads("".join(lines))
    except (tomllib.TOMLDecodeError, RecursionError):  # arrays nested 1,000 deep: a traceback
        return None


def _value_span(lines: list[str], at: int) -> int:
    """How many lines the key and value (or the table header) at `lines[at]` take (an array
    or a multi-line string written over several lines); 1 when those lines are no TOML. Found
    by one scan of the lines, then one parse: parsing each run of lines from `at` until one
    read as TOML was quadratic in a long array (1,000 lines 2.9 s, 4,000 lines 50 s)."""
    if not _OPENS.search(lines[at]):  # no array or multi-line string starts there: one line
        return 1  # (each broken line cost a parse of every run of lines after it: 800, 9 s)
    if not _STARTS.match(lines[at]):  # no TOML starts with `1, [`: each such line, never
        return 1  # closed, was read to the block's end (after `x = [`, 4,000 of them 4.5 s)
    count = _closing_line(lines, at)
    if count is None:
        return 1
    return count if _read(lines[at : at + count]) is not None else 1


# a multi-line string's quotes, a string on one line (perhaps unclosed), a comment, a bracket
_TOKEN = re.compile(r'"""' + r"|'''|" + r'"(?:[^"\\\n]|\\.)*"?' + r"|'[^'\n]*'?|#.*|[][{}=\\]")
_CLOSING = {  # the rest of a multi-line string: its closing quotes, and up to two more
    '"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*"""(?:"{0,2})', re.S),
    "'''": re.compile(r"(?:[^']|'(?!''))*'''(?:'{0,2})"),
}


def _closing_line(lines: list[str], at: int) -> int | None:
    """How many lines from `lines[at]` it takes to close every bracket and multi-line string
    opened there (strings and comments read as such); None when they never close, when a
    table header or an inline table (_cut) does not close on its line, or when a later line
    holds a `=` that no array can (`key = [` and no `]`, then the next key: each such line
    read to the block's end, 200 of them 0.9 s)."""
    depth: list[str] = []  # the brackets open
    quote = ""  # the multi-line string open
    for count, line in enumerate(lines[at:], 1):
        pos = 0
        while pos < len(line):
            if quote:
                closed = _CLOSING[quote].match(line, pos)
                if closed is None:
                    break
                quote, pos = "", closed.end()
                continue
            token = _TOKEN.search(line, pos)
            if token is None:
                break
            text, pos = token.group(), token.end()
            if text in ('"""', "'''"):
                quote = text
            elif text in ("[", "{"):
                depth.append(text)
            elif text in ("]", "}"):
                if not depth or depth.pop() != ("[" if text == "]" else "{"):
                    return None
            elif text == "\\" or (text == "=" and count > 1 and depth[-1:] != ["{"]):
                return None  # no TOML has a backslash out of a string (`a = \"""`: 4,000 lines 7 s)
        if not depth and not quote:
            return count
        if _cut(line, count, depth, quote):
            return None
    return None


def _cut(line: str, count: int, depth: list[str], quote: str) -> bool:
    """Whether no TOML goes on past this line, the `count`th: a table header is one line, and
    TOML 1.0 has no line break in an inline table (each `a = [{` line was read to the block's
    end, a `=` being TOML there: 2,000 of them 2.9 s)."""
    header = count == 1 and line.lstrip().startswith("[")
    return header or (depth[-1:] == ["{"] and not quote and not _TABLES_OVER_LINES)


def _reads_tables_over_lines() -> bool:
    """Whether tomllib reads an inline table over several lines (TOML 1.1; 1.0 forbids it)."""
    return _read(["a = {\n}\n"]) is not None


_TABLES_OVER_LINES = _reads_tables_over_lines()


def comment(line: str) -> str:
    """The comment that ends a line of TOML (`# mine`), "" for none: its first `#` outside a
    string (a basic string with its escapes, or a literal one)."""
    quote, escaped = "", False
    for at, char in enumerate(line):
        if quote == '"' and escaped:
            escaped = False
        elif quote == '"' and char == "\\":
            escaped = True
        elif quote and char == quote:
            quote = ""
        elif not quote and char in "\"'":
            quote = char
        elif not quote and char == "#":
            return line[at:].rstrip("\r\n")
    return ""


def block_flags(text: str) -> list[str] | None:
    """The flags of `memidx mcp` on the args of memidx's block (`--own`; [] for none, or no
    block, or one that is no TOML by itself); None when its command and args run anything else
    (the person rewrote them)."""
    block = _block(text)
    if block is None:
        return []
    try:
        servers = tomllib.loads(block.removeprefix(BOM)).get("mcp_servers")
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    table = cast(dict[str, object], servers) if isinstance(servers, dict) else {}
    return mcp_flags(unwrapped(server_argv(table.get(SERVER))))
