"""A note's prose for the English check: paragraphs, list items and headings without front
matter, code, URLs, paths, tables, HTML or Markdown markup; and the letters that weigh. Pure."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from memidx.notes.catalog_files import catalog_lines
from memidx.notes.letters import MAX_PIECE_CHARS, letter_bytes
from memidx.notes.markdown import front_matter_end, heading_of, scan
from memidx.notes.table_columns import (
    MIN_CELL_BYTES,
    foreign_cells,
    prose_columns,
    translated_columns,
)

_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s+|$)")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_INDENTED = re.compile(r" {0,3}\t| {4}")  # indented code: 4 columns, a tab reaching column 4
# CommonMark's HTML blocks whose lines are shown as they are (<pre>: a pasted log or error)
_RAW_START = re.compile(r" {0,3}<(?:pre|script|style|textarea)(?:\s|>|$)", re.IGNORECASE)
_RAW_END = re.compile(r"</(?:pre|script|style|textarea)>", re.IGNORECASE)
_RULE = re.compile(r"^\s*(?:(?:[-*_]\s*){3,}|=+)\s*$")
# GitHub's table delimiter row, its outer pipes optional (`--- | :---:`): the line before is the
# header and the lines with a pipe after it are rows. No two runs of spaces meet (`\s*\|?\s*`
# split a line of spaces every way: 20,000 of them before a `|` took 3.4 s, a MB hours)
_DELIMITER_ROW = re.compile(r"\s*(?:\|\s*)?:?-+:?\s*(?:\|\s*:?-+:?\s*)*(?:\|\s*)?")
_CELL_SEP = re.compile(r"(?<!\\)\|")  # GitHub's `\|` is a pipe inside a cell
# a table's cell of this many bytes of letters is a sentence and votes, as a paragraph of as
# many does (memidx.notes.english.MIN_UNIT_BYTES); a shorter one is a label, a term or a value
_LINK_DEF = re.compile(r"^\s*\[[^\]]+\]:\s*\S+")
# a list item's dotted key before its sign (`- errors.not_found: ...`, `` - `cart.title`: ``,
# `- "cart.title": ...`) is kept as it is, for memidx.notes.glossary to read a message catalog
# by: stripped as code, a path or markup (`errors.not found`, `: Tu carrito`), it was not one
_KEYED = re.compile(r"""\s*([`"']?)([A-Za-z][\w-]*(?:\.[\w-]+)+)\1\s*(?::|=|→|->)\s+""", re.ASCII)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# Stripped before detection; an address or a path begins where its run of letters does (tried
# at every letter of a 64 KB token, they took 6 s of CPU, four times as long for twice the
# length). ASCII only (re.ASCII, [!-~]) on purpose: CJK prose has no spaces,
# and a Unicode \S+ or \w+ would swallow the sentence around a URL, a path or an identifier.
_NOISE = re.compile(
    r"""
    (`+).+?\1                                     # inline code
    | \b(?:https?|ftp|file|ssh|git)://[!-~]+      # URLs
    | \bwww\.[!-~]+ | \bmailto:[!-~]+
    | (?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]+   # e-mail addresses
    | \b[A-Za-z]:[\\/][!-~]*                      # C:\Users\x
    | \\\\[!-~]+                                  # \\server\share
    | (?<![A-Za-z0-9_/])(?:~|\.{1,2})?(?:/[A-Za-z0-9_.~+@%:=-]+)+/?   # /usr/lib, ~/.config
    | (?<![A-Za-z0-9_.-])[.-]*\b[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?    # src/app/main.py
    | \b[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*){2,}(?:\([^()\n]*\))?   # com.example.Foo.bar()
    | (?<![\w$-])[\w$-]+\.[A-Za-z]{1,5}:\d+        # Foo.java:88
    | </?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>    # HTML tags
    """,
    re.VERBOSE | re.ASCII,
)
_IMAGE = re.compile(r"!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_MARKUP = re.compile(r"[*_#>`~=|\[\]{}<>\\^]+")
_SPACE = re.compile(r"\s+")
# letters with a dot after each (B.i.t.t.e. v.o.r.) are a word, not a dotted code name for
# _NOISE to strip (44 of 103 foreign notes passed so): each is read as one word, as e.g.,
# i.e., U.S. or a.b.c then are (eg, ie, US, abc: still English)
_DOTTED_LETTERS = re.compile(r"(?<![\w.])(?:[^\W\d_]\.)+[^\W\d_](?!\w)\.?")
# one of them in every match of the four above: a dot only before a sign or a letter (`e.g.`,
# `a.b.c`, `www.x`), not a sentence's last (a 1 MB table of sentences: each cell read them all)
_SIGN = re.compile(r"[`:@\\/<>\[\]*_#~=|{}^]|\.\S")


def strip_front_matter(text: str) -> str:
    """The text without a leading YAML front matter block (kept as is when it is not closed)."""
    lines = text.split("\n")
    return "\n".join(lines[front_matter_end(lines) or 0 :])


def clean_inline(line: str) -> str:
    """One line of prose without code, URLs, paths, HTML tags and Markdown markup."""
    if not _SIGN.search(line):  # none of the patterns can match: a 1 MB list took 0.3 s more
        return _SPACE.sub(" ", line).strip()
    if "." in line:
        line = _DOTTED_LETTERS.sub(lambda dotted: dotted[0].replace(".", ""), line)
    line = _LINK.sub(r" \1 ", _IMAGE.sub(" ", line))  # before URLs, which would eat the ")"
    line = _NOISE.sub(" ", line)
    return _SPACE.sub(" ", _MARKUP.sub(" ", line)).strip()


def _item_text(text: str) -> str:
    """A list item's text cleaned (clean_inline), but for a dotted key before its sign."""
    if (keyed := _KEYED.match(text)) is None:
        return clean_inline(text)
    return f"{keyed[2]}: {clean_inline(text[keyed.end() :])}"


def prose_units(text: str, *, quotes: bool = True) -> list[str]:
    """The prose of a note as units: each paragraph, list item and heading is one unit.
    `quotes=False` leaves out block quotes (`> ...`): the words of someone else."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    text = _COMMENT.sub(" ", strip_front_matter(text))
    units: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if unit := " ".join(part for part in current if part):
            units.append(unit)
        current.clear()

    in_code = in_raw = False
    # CommonMark's indented code block: lines indented 4 columns after a blank line (it cannot
    # interrupt a paragraph); in a list item, 4 columns past where the item's text begins (a
    # log under "- Read the log:" indented 8 spaces was read as prose), as its paragraphs are.
    indented, in_list, after_blank, column = False, False, True, 0
    # tables' and catalogs' lines (memidx.notes.catalog_files), read as blank lines (no fence
    # opens in them)
    rows = catalog_lines(lines := text.split("\n")) | _tables(lines)
    for at, (raw, code, _) in enumerate(
        scan("" if k in rows else ln for k, ln in enumerate(lines))
    ):
        if code:
            if not in_code:
                flush()
            in_code, after_blank = True, True
            continue
        in_code = False
        quote = _QUOTE.match(raw)
        if quote is not None and not quotes:
            flush()
            continue
        line = raw[quote.end() :] if quote is not None else raw
        if in_raw or _RAW_START.match(line):
            flush()
            in_raw = not _RAW_END.search(line)
            continue
        if (
            (line.strip() or at in rows)  # a table's line, read as blank, as it is written
            and (indented or after_blank)
            and _code_indent(lines[at] if at in rows else line, column if in_list else 0)
        ):
            flush()
            indented = True
            continue
        indented = False
        was_blank, after_blank = after_blank, not line.strip()
        row = line.lstrip().startswith("|")  # a table's row gives its sentences, as _tables
        if row or not line.strip() or _RULE.match(line) or _LINK_DEF.match(line):
            flush()
            units.extend(sentence_cells(line) if row else rows.get(at, ()))
        elif heading := heading_of(line):  # also in a block quote, which scan does not read
            flush()
            current.append(clean_inline(heading.text))
            flush()
        elif item := _ITEM.match(line):
            flush()
            in_list, column = True, len(line[: item.end()].expandtabs(4))
            current.append(_item_text(line[item.end() :]))
        else:
            if was_blank and not line[0].isspace():
                in_list = False  # a paragraph after a blank line, at the margin, ends the list
            current.append(clean_inline(line))
    flush()
    return units


def _tables(lines: list[str]) -> dict[int, list[str]]:
    """Each table's lines by index, with the units each gives (_table_units). A table: a header
    with a pipe, a delimiter row, its rows up to a line without a pipe (tables without leading
    pipes, `a | b`, were read as prose); its lines with leading pipes are also read as rows by
    prose_units. GitHub reads a line without a pipe right after a table as one more row, but
    that line is read as prose here: a paragraph in another language after a one-row table,
    or a code block's closing fence after a table in it (all that followed read as code), went
    unread."""
    found: dict[int, list[str]] = {}
    at = 1
    while at < len(lines):
        if "|" in lines[at - 1] and "|" in lines[at] and _DELIMITER_ROW.fullmatch(lines[at]):
            end = next((k for k in range(at, len(lines)) if "|" not in lines[k]), len(lines))
            found.update(zip(range(at - 1, end), _table_units(lines[at - 1 : end]), strict=True))
            at = end  # a delimiter row inside it starts no table: each took its rest again
        at += 1
    return found


def _table_units(table: list[str]) -> list[list[str]]:
    """The units of a table's lines (header, delimiter row, rows): the sentences of each line
    (sentence_cells); but when a table of two columns holds one, its first column none, each
    row as the list item `label: value` it is, read as lists of pairs are (memidx.notes.
    glossary: a Japanese UI glossary passes as a table as it does as a list). A column of
    shorter cells that is prose cut in cells is read as one paragraph (prose_columns)."""
    cells = [[clean_inline(cell) for cell in _cells(line)] for line in table]  # once: 1 MB
    foreign: list[str] = []
    if translated := translated_columns(cells[0], cells[2:]):  # `| EN | DE |`: data, no vote
        foreign = foreign_cells(cells[0], cells[2:])  # but its English column's German does
        cells = [[c for at, c in enumerate(row) if at not in translated] for row in cells]
    weights = [[letter_bytes(cell) for cell in row] for row in cells]
    units = [
        [cell for cell, weight in zip(row, ws, strict=True) if weight >= MIN_CELL_BYTES]
        for row, ws in zip(cells, weights, strict=True)
    ]
    rows, body = cells[2:], weights[2:]
    pairs = any(units) and rows and all(len(row) == 2 and all(row) for row in rows)
    if pairs and not any(ws[0] >= MIN_CELL_BYTES for ws in body):
        return [units[0], [], *([f"{label}: {value}"] for label, value in rows)]
    units[-1] = [*units[-1], *prose_columns(rows, body), *foreign]
    return units


def sentence_cells(row: str) -> list[str]:
    """The cells of a table's row holding MIN_CELL_BYTES bytes of letters or more, cleaned: a
    sentence votes as a paragraph does, while a label, a term, a number or code does not (a
    note written as a table of German sentences passed unread)."""
    cells = (clean_inline(cell) for cell in _cells(row))
    return [cell for cell in cells if letter_bytes(cell) >= MIN_CELL_BYTES]


def _cells(row: str) -> list[str]:
    """The cells of a table's row, its outer pipes optional (`| a | b |`, `a | b`)."""
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return _CELL_SEP.split(row)


def _code_indent(line: str, column: int) -> bool:
    """Whether `line` is indented 4 columns or more past `column` (a tab reaches the next 4)."""
    if column == 0:
        return _INDENTED.match(line) is not None
    spaces = line[: len(line) - len(line.lstrip(" \t"))].expandtabs(4)
    return len(spaces) >= column + 4


def pieces(text: str, size: int = MAX_PIECE_CHARS) -> list[str]:
    """`text` in pieces of at most `size` characters, cut after a space in a piece's second
    half when there is one (CJK prose has none): each piece is read and weighed on its own."""
    found: list[str] = []
    while len(text) > size:
        cut = text.rfind(" ", size // 2, size) + 1 or size
        found.append(text[:cut].strip())
        text = text[cut:]
    return [*found, text.strip()] if text.strip() else found


def in_pieces(units: Sequence[str]) -> list[str]:
    """The units, each one over MAX_PIECE_CHARS in its pieces (as the vote reads them)."""
    return [piece for unit in units for piece in pieces(unit)]


def script_of(ch: str) -> str:
    """The Unicode script-ish name of a letter: LATIN, CJK, CYRILLIC, HANGUL, ..."""
    if ch < "\x80":
        return "LATIN"
    name = unicodedata.name(ch, "UNKNOWN")
    return "LATIN" if " LATIN " in f" {name} " else name.split(" ", 1)[0]  # also FULLWIDTH LATIN
