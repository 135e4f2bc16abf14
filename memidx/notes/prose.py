"""A note's prose for the English check: paragraphs, list items and headings without front
matter, code, URLs, paths, tables, HTML or Markdown markup; and the letters that weigh. Pure."""

from __future__ import annotations

import re
import unicodedata

from memidx.notes.markdown import front_matter_end, heading_of, scan

_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s+|$)")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_INDENTED = re.compile(r" {0,3}\t| {4}")  # indented code: 4 columns, a tab reaching column 4
_RULE = re.compile(r"^\s*(?:(?:[-*_]\s*){3,}|=+)\s*$")
_LINK_DEF = re.compile(r"^\s*\[[^\]]+\]:\s*\S+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# Stripped before detection. ASCII only (re.ASCII, [!-~]) on purpose: CJK prose has no spaces,
# and a Unicode \S+ or \w+ would swallow the sentence around a URL, a path or an identifier.
_NOISE = re.compile(
    r"""
    (`+).+?\1                                     # inline code
    | \b(?:https?|ftp|file|ssh|git)://[!-~]+      # URLs
    | \bwww\.[!-~]+ | \bmailto:[!-~]+
    | [A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]+   # e-mail addresses
    | \b[A-Za-z]:[\\/][!-~]*                      # C:\Users\x
    | \\\\[!-~]+                                  # \\server\share
    | (?<![A-Za-z0-9_/])(?:~|\.{1,2})?(?:/[A-Za-z0-9_.~+@%:=-]+)+/?   # /usr/lib, ~/.config
    | \b[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?    # src/app/main.py
    | \b[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*){2,}(?:\([^()\n]*\))?   # com.example.Foo.bar()
    | \b[\w$-]+\.[A-Za-z]{1,5}:\d+                # Foo.java:88
    | </?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>    # HTML tags
    """,
    re.VERBOSE | re.ASCII,
)
_IMAGE = re.compile(r"!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_MARKUP = re.compile(r"[*_#>`~=|\[\]{}<>\\^]+")
_SPACE = re.compile(r"\s+")


def strip_front_matter(text: str) -> str:
    """The text without a leading YAML front matter block (kept as is when it is not closed)."""
    lines = text.split("\n")
    return "\n".join(lines[front_matter_end(lines) or 0 :])


def clean_inline(line: str) -> str:
    """One line of prose without code, URLs, paths, HTML tags and Markdown markup."""
    line = _LINK.sub(r" \1 ", _IMAGE.sub(" ", line))  # before URLs, which would eat the ")"
    line = _NOISE.sub(" ", line)
    return _SPACE.sub(" ", _MARKUP.sub(" ", line)).strip()


def prose_units(text: str, *, quotes: bool = True) -> list[str]:
    """The prose of a note as units: each paragraph, list item and heading is one unit.
    `quotes=False` leaves out block quotes (`> ...`): the words of someone else."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    text = _COMMENT.sub(" ", strip_front_matter(text))
    units: list[str] = []
    current: list[str] = []

    def flush() -> None:
        unit = " ".join(part for part in current if part)
        if unit:
            units.append(unit)
        current.clear()

    in_code = False
    # CommonMark's indented code block: lines indented 4 columns after a blank line (it cannot
    # interrupt a paragraph), unless they continue a list item, whose paragraphs are indented.
    indented, in_list, after_blank = False, False, True
    for raw, code, _ in scan(text.split("\n")):
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
        if line.strip() and _INDENTED.match(line) and (indented or (after_blank and not in_list)):
            flush()
            indented = True
            continue
        indented = False
        was_blank, after_blank = after_blank, not line.strip()
        if not line.strip() or _RULE.match(line) or _LINK_DEF.match(line):
            flush()
        elif line.lstrip().startswith("|"):
            flush()  # a Markdown table row: cells are labels and values, not prose
        elif heading := heading_of(line):  # also in a block quote, which scan does not read
            flush()
            current.append(clean_inline(heading.text))
            flush()
        elif item := _ITEM.match(line):
            flush()
            in_list = True
            current.append(clean_inline(line[item.end() :]))
        else:
            if was_blank and not line[0].isspace():
                in_list = False  # a paragraph after a blank line, at the margin, ends the list
            current.append(clean_inline(line))
    flush()
    return units


def letter_bytes(text: str) -> int:
    """UTF-8 bytes of the letters in text (a CJK character weighs 3, an ASCII letter 1)."""
    return sum(1 if ch < "\x80" else len(ch.encode()) for ch in text if ch.isalpha())


def script_of(ch: str) -> str:
    """The Unicode script-ish name of a letter: LATIN, CJK, CYRILLIC, HANGUL, ..."""
    if ch < "\x80":
        return "LATIN"
    name = unicodedata.name(ch, "UNKNOWN")
    return "LATIN" if " LATIN " in f" {name} " else name.split(" ", 1)[0]  # also FULLWIDTH LATIN
