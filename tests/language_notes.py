"""The labeled notes of the shared data folder (read by path, never copied; a test that needs
them skips with the reason when they are absent) and the pieces the English check's tests cut
them into: words, runs of words, a list under an English sentence."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.notes.english import check_text
from memidx.notes.prose import prose_units

SENTENCE = "Here are the notes from the meeting last week.\n\n"
WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
ORDINALS = (
    *("one", "two", "three", "four", "five", "six"),
    *("seven", "eight", "nine", "ten", "eleven", "twelve"),
)


def labeled() -> list[dict[str, object]]:
    """Every labeled note, as its JSON row (`text`, `label` "en" or "non-en", `short`, ...)."""
    root = Path(__file__).parents[1]
    data = Path(os.environ["DATA"]) if os.environ.get("DATA") else root / ".." / "shared" / "data"
    path = data / "lang" / "lang_notes.jsonl"
    if not path.is_file():
        pytest.skip(f"no labeled notes at {path} (set DATA to the shared data folder)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def texts(label: str) -> list[str]:
    """The texts of the labeled notes with this label ("en" or "non-en")."""
    return [str(row["text"]) for row in labeled() if row["label"] == label]


def pieces(text: str, size: int) -> list[str]:
    """The words of the note's prose, `size` at a time."""
    words = WORD.findall(" ".join(prose_units(text)))
    return [" ".join(words[i : i + size]) for i in range(0, len(words), size)]


def foreign_passing(quoted: Callable[[str], str]) -> list[str]:
    """The start of each labeled foreign note (all 103 of them) that the English check passes
    once `quoted` has made it into a note's text."""
    notes = texts("non-en")
    assert len(notes) == 103, len(notes)
    return [text[:40] for text in notes if check_text(quoted(text)).english]
