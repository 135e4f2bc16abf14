"""The letters that weigh in the English check, and the runs its short units are read in.
Pure; imports nothing of memidx."""

from __future__ import annotations

from collections.abc import Sequence

# A paragraph longer than this is read in pieces: the model's work stays linear in the note and
# a long paragraph's tail cannot hide behind its head (memidx.notes.quotation.MAX_READ)
MAX_PIECE_CHARS = 4096


def runs(units: Sequence[str], size: int = MAX_PIECE_CHARS) -> list[list[str]]:
    """Consecutive units in runs of at most `size` characters (a unit longer stays alone)."""
    found: list[list[str]] = [[]]
    length = 0
    for unit in units:
        if found[-1] and length + len(unit) > size:
            found.append([])
            length = 0
        found[-1].append(unit)
        length += len(unit) + 1
    return found if found[-1] else []


def letter_bytes(text: str) -> int:
    """UTF-8 bytes of the letters in text (a CJK character weighs 3, an ASCII letter 1)."""
    letters = "".join(filter(str.isalpha, text))  # a loop in C: a 1 MB note costs ~10 ms
    return len(letters) if letters.isascii() else len(letters.encode())
