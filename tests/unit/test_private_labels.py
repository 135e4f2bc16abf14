"""A hit's title and heading are masked where they come from a heading inside a `<private>`
span: a note's title is its first heading's text and a hit's heading its chunk's, so a note
whose heading was marked private after it was committed showed that heading as its title in
search, the MCP `get` and `recent` tools and the agents' blocks, while its snippet was masked.
Masked alone (as every title is), a heading holds neither tag."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.browse import NoteRow
from memidx.index.store import Filters, Store
from memidx.mcp.answers import note_data
from memidx.search.lexical import lexical_search
from memidx.search.masking import private_labels
from memidx.search.recent import recent
from memidx.search.searcher import Searcher
from tests.helpers import FakeEmbedder, add_older_note

HIDDEN = "[REDACTED:private]"
SECRET = "<private>\n# Globex merger\n\nWe buy Globex in March: falcon.\n</private>\n"


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (SECRET, HIDDEN),
        (f"Intro.\n\n{SECRET}", HIDDEN),
        (f"<PRIVATE >\n{'text ' * 50}\n# Globex merger\n", HIDDEN),  # unclosed: to the end
        (f"# Globex merger\n\n{SECRET}", "Globex merger"),  # also a heading outside it
        ("# Globex merger <private>x</private>\n", "Globex merger"),  # the span after it
        ("```\n<private>\n```\n# Globex merger\n", HIDDEN),  # a span knows no code fence
        ("<private>x</private>\n# Globex merger\n", "Globex merger"),
        ("Globex merger <private>\n", "Globex merger"),  # no heading: the file's title
    ],
)
def test_a_heading_only_inside_a_private_span_is_masked(body: str, shown: str) -> None:
    assert private_labels(body, ["Globex merger", None]) == [shown, None]


def test_search_masks_a_title_from_a_private_heading(store: Store) -> None:
    add_older_note(store, "notes/plan.md", SECRET)
    [hit] = lexical_search(store, "falcon", Filters(), 5).hits
    assert "Globex" not in f"{hit.title} {hit.heading} {hit.snippet}", hit
    assert hit.title == HIDDEN


def test_a_meaning_hit_masks_the_heading_of_its_private_chunk(store: Store, tmp_path: Path) -> None:
    """A hit found by its vectors names its chunk's heading, masked alone before."""
    words = " ".join(f"w{i}" for i in range(300))
    body = (
        f"# Plan\n\n{words}\n\n<private>\n## Acquisition of Globex\n\nfalcon {words}\n</private>\n"
    )
    add_older_note(store, "notes/plan.md", body)
    fake = FakeEmbedder()
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    searcher = Searcher(store, config, _embedder=fake)
    [hit] = searcher.search("Acquisition of Globex falcon", Filters(), 3, "vector").hits
    assert hit.heading == HIDDEN and "Globex" not in str(hit), hit


def test_mcp_get_and_recent_mask_a_title_from_a_private_heading(store: Store) -> None:
    add_older_note(store, "notes/plan.md", SECRET)
    found = recent(store, 5, notes_dir="notes", project=None, kind=None)
    assert "Globex" not in str(found) and HIDDEN in str(found), found
    data = note_data(NoteRow("notes/plan.md", "Globex merger", (), {}, None), SECRET)
    assert data["title"] == HIDDEN and "Globex" not in str(data), data
