"""Text for people: safe to print on one line, counts with the right noun."""

from __future__ import annotations


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
