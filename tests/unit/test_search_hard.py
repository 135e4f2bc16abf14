"""Search as an independent tester tried to break it, on in-memory SQLite: text the index holds
is found by the same text as a query whatever its Unicode form."""

from __future__ import annotations

import unicodedata
from typing import Literal

import pytest

from memidx.index.store import Filters, Store
from memidx.search.lexical import lexical_search
from tests.helpers import add_note

# Text as people paste it: macOS file names and some PDFs give the decomposed (NFD) form.
# unicode61 drops Latin diacritics, so either form finds the other.
FOLDED = ["naïve résumé", "Ångström façade", "Việt Nam phở", "İstanbul"]
# unicode61 neither composes nor folds these: each form finds its own.
UNFOLDED = [
    "Ελληνικά γλώσσα",
    "йогурт",
    "हिन्दी भाषा",  # Devanagari: vowel signs and virama split words in both readers
    "שָׁלוֹם",  # Hebrew points
    "東京 タワー",
    "한국어 검색",
]
Form = Literal["NFC", "NFD"]
FORMS: list[tuple[Form, Form]] = [("NFC", "NFC"), ("NFD", "NFD"), ("NFC", "NFD"), ("NFD", "NFC")]
CASES = [(text, *forms) for text in FOLDED for forms in FORMS] + [
    (text, *forms) for text in UNFOLDED for forms in FORMS[:2]
]


@pytest.mark.parametrize(("text", "note_form", "query_form"), CASES)
def test_a_note_is_found_by_its_own_words_in_either_unicode_form(
    store: Store, text: str, note_form: Form, query_form: Form
) -> None:
    """A decomposed "naïve" was searched as "nai" AND "ve": Python splits a word at a combining
    mark that unicode61 keeps in the word and drops (remove_diacritics)."""
    add_note(store, "notes/other.md", "# Other\n\nnothing alike here\n")
    add_note(store, "notes/words.md", f"# Words\n\n{unicodedata.normalize(note_form, text)}\n")

    result = lexical_search(store, unicodedata.normalize(query_form, text), Filters(), 5)

    assert [(h.ref, h.line, result.match) for h in result.hits] == [("notes/words.md", 3, "and")]
