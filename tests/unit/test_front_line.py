"""A note whose searched words are in its front matter alone (title, tags, aliases) points at
the front-matter line that holds them, the `title:` line first (memidx.search.front_line)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from memidx.search.front_line import front_line, point_at_front_matter
from memidx.search.lexical import MARK_END, MARK_START, Hit, SearchResult
from memidx.search.query import query_terms

NOTE = (
    '---\ntags: [sqlite, wal]\ntitle: "SQLite database is locked"\naliases:\n  - busy db\n'
    "---\n\nbody\n"
)


@pytest.mark.parametrize(
    ("text", "words", "line"),
    [
        (NOTE, {"database"}, 3),
        (NOTE, {"sqlite"}, 3),  # in the tags too: the title's line first
        (NOTE, {"wal"}, 2),
        (NOTE, {"busy"}, 5),  # a list item of aliases
        (NOTE, {"title"}, None),  # a key's name is no value
        (NOTE, {"body"}, None),  # below the front matter: the body's business
        ("\ufeff" + NOTE.replace("\n", "\r\n"), {"database"}, 3),  # as parse_note reads it
        ("# SQLite database\n\nbody\n", {"database"}, None),  # no front matter
        ("---\ntitle: database\n\nbody\n", {"database"}, None),  # never closed
        # a word only inside a span: the line named would say where the span holds it
        (NOTE.replace("sqlite, wal", "<private>kestrel</private>"), {"kestrel", "wal"}, None),
        (NOTE.replace("wal]", "<private>busy,\n  x]</private>"), {"busy"}, 6),
        # a span over the `---` that closes the front matter: it still closes there
        ("---\ntitle: A <private>x\n---\n</private>\n", {"x"}, None),
    ],
)
def test_front_line_is_the_line_of_the_value_holding_a_word(
    text: str, words: set[str], line: int | None
) -> None:
    assert front_line(text, words) == line


def hit(snippet: str, match: str, line: int = 7, kind: str = "note") -> Hit:
    return Hit(1, kind, "notes/a.md", "SQLite database is locked", 1.0, snippet, line,
               heading="Locks", match=match)  # fmt: skip


def test_only_a_note_found_by_words_outside_its_body_is_pointed_again(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text(NOTE)
    marked = f"the {MARK_START}database{MARK_END} is locked"
    cases = [
        (hit("a plain excerpt", "and"), 3, None),  # as hybrid gives it: the chunk's excerpt
        (hit("a plain excerpt", "or"), 3, None),
        (hit(marked, "and"), 7, "Locks"),  # the body has the word: its line stays
        (hit("a plain excerpt", "meaning"), 7, "Locks"),  # found by meaning alone
        (hit("a plain excerpt", "and", kind="turn"), 7, "Locks"),
    ]
    for given, line, heading in cases:
        result = SearchResult("database", query_terms("database"), "bm25", "and", (given,))
        pointed = point_at_front_matter(result, tmp_path).hits[0]
        assert (pointed.line, pointed.heading) == (line, heading), given
    (tmp_path / "notes" / "a.md").unlink()  # gone since indexed: the line it had
    result = SearchResult("database", query_terms("database"), "bm25", "and", (cases[0][0],))
    assert point_at_front_matter(result, tmp_path).hits[0].line == 7


def test_a_note_become_a_link_or_a_fifo_is_not_read(tmp_path: Path) -> None:
    """The hit keeps its body's line: a link is not followed (git holds a link's target path,
    no note; the file it names may be outside the memory), a FIFO is not waited on (the
    search waited for a writer, forever)."""
    (tmp_path / "notes").mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text(NOTE)
    (tmp_path / "notes" / "a.md").symlink_to(outside)
    result = SearchResult("database", query_terms("database"), "bm25", "and", (hit("x", "and"),))
    assert point_at_front_matter(result, tmp_path).hits[0].line == 7
    (tmp_path / "notes" / "a.md").unlink()
    os.mkfifo(tmp_path / "notes" / "a.md")
    found: list[int] = []
    reader = threading.Thread(
        target=lambda: found.append(point_at_front_matter(result, tmp_path).hits[0].line),
        daemon=True,
    )
    reader.start()
    reader.join(2.0)
    if reader.is_alive():  # let the waiting reader go before failing
        os.close(os.open(tmp_path / "notes" / "a.md", os.O_WRONLY | os.O_NONBLOCK))
    assert found == [7]
