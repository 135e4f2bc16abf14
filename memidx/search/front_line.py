"""The line a note's hit points at when its words matched outside the body alone (the title,
tags or aliases of the front matter): the front-matter line that holds them, the `title:` line
first. The index keeps the body and the line it starts at, not the front matter's lines, so the
note's file is read here, for those hits only; a line is given only when it holds a searched
word as the file is now, so an edit since the index never makes it point at another line."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from memidx.drafts import read_regular
from memidx.notes.markdown import front_matter_end
from memidx.search.lexical import MARK_START, Hit, SearchResult
from memidx.search.query import tokenize

NOTE = "note"
BY_WORDS = ("and", "or")
FRONT_BYTES = 64 * 1024  # front matter longer than this is read as none
_KEY = re.compile(r"\s*[A-Za-z_][\w-]*\s*:")
_TITLE_KEY = re.compile(r"title\s*:")


def point_at_front_matter(result: SearchResult, root: Path) -> SearchResult:
    """`result` with each note hit whose words are in its front matter alone pointing at the
    line that holds them (its heading none: the line is before the first)."""
    words = set(result.terms.terms)
    hits = tuple(_pointed(hit, root, words) if _outside_body(hit) else hit for hit in result.hits)
    return result if hits == result.hits else replace(result, hits=hits)


def _outside_body(hit: Hit) -> bool:
    """A note found by its words with none of them marked in its body's snippet."""
    return hit.kind == NOTE and hit.match in BY_WORDS and MARK_START not in hit.snippet


def _pointed(hit: Hit, root: Path, words: Collection[str]) -> Hit:
    text = _front_bytes(root / hit.ref)
    if text is None:  # gone, unreadable or no note since it was indexed: the body's line
        return hit
    line = front_line(text, words)
    return hit if line is None else replace(hit, line=line, heading=None)


def _front_bytes(path: Path) -> str | None:
    """The first FRONT_BYTES of the note's file, None unless it is a regular file: a link is
    not followed (git holds a link as its target's path, not as a note, and the file it
    names may be anywhere) nor a FIFO waited on (the search would wait for a writer)."""
    data = read_regular(path, FRONT_BYTES)
    return None if data is None else data.decode("utf-8", "replace")


def front_line(text: str, words: Collection[str]) -> int | None:
    """The 1-based line of the note `text` whose front-matter value holds one of `words` (the
    query's terms), the `title:` line first; None when no such line. A word only inside a
    `<private>` span holds none: the line a hit named told where the span said it."""
    from memidx.private import PRIVATE_STAND_IN, without_private

    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    end = front_matter_end(text.split("\n"))  # as the note reader reads it, spans and all
    if not end:
        return None
    lines = without_private(text, mark=PRIVATE_STAND_IN).split("\n")  # line for line
    holding = [n for n, line in enumerate(lines[1 : end - 1], 2) if _holds(line, words)]
    titles = [n for n in holding if _TITLE_KEY.match(lines[n - 1])]
    return (titles or holding or [None])[0]


def _holds(line: str, words: Collection[str]) -> bool:
    """Whether the value on a front-matter line (after its `key:`) has one of `words`."""
    key = _KEY.match(line)
    value = line[key.end() :] if key else line
    return any(token in words for token in tokenize(value))
