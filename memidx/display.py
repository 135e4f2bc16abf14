"""Text that is safe to print on one line."""

from __future__ import annotations


def display(text: str) -> str:
    """Control characters (a newline in a file name) escaped, everything else as it is."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
