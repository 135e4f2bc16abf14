"""Text for people: safe to print on one line, a path as one shell word, counts with the right
noun."""

from __future__ import annotations

import unicodedata
from shlex import quote


def display(text: str) -> str:
    """Control characters (a newline in a file name) escaped, and bytes that are not UTF-8 (a
    file name read with surrogateescape) as `\\xHH`; everything else as it is."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    if 0xDC80 <= ord(char) <= 0xDCFF:  # the byte surrogateescape read
        return f"\\x{ord(char) - 0xDC00:02x}"
    return char.encode("unicode_escape").decode()


KEPT = frozenset("\n\t")  # the controls prose is written with
HIDDEN = frozenset({"Cc", "Cf"})  # C0 and C1 controls; format characters (bidi, zero-width, BOM)
JOINERS = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: part of emoji sequences and of some scripts
# Format characters that show as a sign of their own (Arabic's number signs and end of ayah,
# Syriac's abbreviation mark, Kaithi's number signs): Unicode's prepended concatenation marks.
SHOWN = frozenset(
    "\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd"
)
FLAG = "\U0001f3f4"  # an emoji tag sequence's base (the flags of England, Scotland, Wales)
TAGS = range(0xE0020, 0xE0080)  # its tag characters, up to the cancel tag that ends it


def prose(text: str) -> str:
    """A note's text for people: without the characters a terminal does not show but acts on
    (Trojan Source: a bidi override makes `b = a` read as `a = b`; an escape sequence clears
    the screen), newlines and tabs kept. What people write with format characters stays: a
    joiner between two characters that are not ASCII (an emoji family, Persian's ZWNJ,
    Indic conjuncts), a flag's tag sequence, the signs Arabic writes before numbers; a joiner next
    to ASCII (inside `user`) is dropped. JSON output stays verbatim; a file name is
    `display`ed (escaped) instead, so that it can still be typed."""
    if text.isprintable():
        return text
    kept: list[str] = []
    for at, char in enumerate(text):
        if _shown(char) or _joins(kept, text, at) or _tags(kept, char):
            kept.append(char)
    return "".join(kept)


def _shown(char: str) -> bool:
    return char in KEPT or char in SHOWN or unicodedata.category(char) not in HIDDEN


def _tags(kept: list[str], char: str) -> bool:
    """Whether `char` is a tag character continuing a flag's tag sequence."""
    return ord(char) in TAGS and bool(kept) and (kept[-1] == FLAG or ord(kept[-1]) in TAGS)


def _joins(kept: list[str], text: str, at: int) -> bool:
    """Whether `text[at]` is a joiner between two shown characters that are not ASCII."""
    after = text[at + 1 : at + 2]
    return (
        text[at] in JOINERS
        and bool(kept and after)
        and not kept[-1].isascii()
        and not after.isascii()
        and unicodedata.category(after) not in HIDDEN
    )


def prose_line(text: str) -> str:
    """A note's text for people on one line (a title, a heading, a reason): `prose`, and any
    newline or tab left `display`ed."""
    return display(prose(text))


def counted(n: int, noun: str) -> str:
    """`1 note`, `2 notes`: a count with its noun in the singular or plural."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def is_utf8(text: str) -> bool:
    """Whether `text` can be written as UTF-8: no lone surrogate (bytes that were not UTF-8,
    read with surrogateescape, as argv and git's paths come)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def well_formed(text: str) -> str:
    """`text` with each lone surrogate (JSON's "\\ud83d", bytes that were not UTF-8) as U+FFFD
    and each split pair joined: what a tokenizer or UTF-8 takes."""
    if is_utf8(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def well_formed_utf8(text: str) -> bytes:
    """well_formed(`text`) as UTF-8, encoded once where it is well formed (a hook's 262 MiB
    transcript was encoded three times, ~1.5 s each on a loaded machine)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return well_formed(text).encode("utf-8")


def shell_quote(text: str) -> str:
    """`text` as one shell word on one line: quoted as shlex does, or, when it holds a control
    character or bytes that are not UTF-8, as $'...' with those escaped (bash, zsh, ksh)."""
    if printable(text) == text:
        return quote(text)
    return "$'" + printable(text.replace("\\", "\\\\").replace("'", "\\'")) + "'"


def printable(text: str) -> str:
    """`text` with each control character, and each byte that is not UTF-8 (a path read with
    surrogateescape), written as \\xHH: what a one-line message may hold of a path."""
    out: list[str] = []
    for char in text:
        if 0xDC80 <= ord(char) <= 0xDCFF:
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif not char.isprintable() and char != " ":
            out.extend(f"\\x{byte:02x}" for byte in char.encode())
        else:
            out.append(char)
    return "".join(out)
