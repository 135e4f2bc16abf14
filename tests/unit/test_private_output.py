"""Output masks `<private>` spans as it masks secrets: a note whose text was marked private
after it was committed, or a record an older memidx filed, kept the span's text, and search
snippets, the MCP `get` tool and the agents' blocks showed it, the snippet of a long span
without either of its tags too."""

from __future__ import annotations

import json

from memidx.index.browse import NoteRow
from memidx.index.store import Filters, Store
from memidx.mcp.answers import note_data
from memidx.search.lexical import lexical_search
from memidx.secrets.detect import mask, mask_many
from tests.helpers import add_older_note

WORDS = " ".join(f"w{i}" for i in range(40))
PLAN = "the launch code is kestrel"


def test_mask_hides_a_private_span_even_on_an_allow_marked_line() -> None:
    text = f"a <private>{PLAN}</private> b <!-- memidx: allow-secret -->"
    assert mask(text) == "a [REDACTED:private] b <!-- memidx: allow-secret -->"


def test_mask_many_reads_each_text_for_its_own_spans() -> None:
    """An unclosed span runs to the end of its own text, not into the next one."""
    shown = mask_many([f"x <private>{PLAN}", "y", f"<PRIVATE >{PLAN}</private> z"])
    assert shown == ["x [REDACTED:private]", "y", "[REDACTED:private] z"]


def test_a_snippet_inside_a_private_span_shows_none_of_it(store: Store) -> None:
    """FTS5's snippet of a long span holds neither tag: masked alone it was shown as is."""
    body = f"Intro.\n\n<private>\n{WORDS} {PLAN} {WORDS}\n</private>\n\nOutro.\n"
    add_older_note(store, "notes/plan.md", f"---\ntitle: Plan\n---\n\n{body}")
    [hit] = lexical_search(store, "kestrel", Filters(), 5).hits
    assert "kestrel" not in hit.snippet and "[REDACTED:private]" in hit.snippet, hit.snippet


def test_mcp_get_masks_a_private_span() -> None:
    row = NoteRow("notes/plan.md", "Plan", (), {}, None)
    data = note_data(row, f"Plan\n<private>\n{PLAN}\n</private>\nend")
    assert PLAN not in json.dumps(data) and data["text"] == "Plan\n[REDACTED:private]\nend"
