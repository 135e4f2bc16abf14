"""Letters spaced out with the same sign between words as between letters (`d i e s e r`,
`*d*i*e*`, whose markup is a space by the time the model reads it): read without the spaces,
the words ran together ("dieserbuild...") and the model read no language surely, so 5 of the
103 labeled foreign notes passed, as 100% English. Such text is now read as no language's."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from memidx.notes.language_message import problem_message
from memidx.notes.prose import prose_units
from memidx.notes.quotation import SPACED_OUT, words_for_the_model
from tests.language_notes import texts


@pytest.mark.parametrize(
    ("sign", "between"),
    [(" ", " "), ("*", " "), ("_", " "), ("**", " "), ("\u00a0", "\u00a0"), ("\t", "\t")],
)
def test_letters_spaced_out_like_the_words_carry_no_foreign_note_through(
    sign: str, between: str
) -> None:
    def spaced(text: str) -> str:
        units = prose_units(text)
        return "\n\n".join(between.join(sign.join(w) for w in u.split()) for u in units)

    notes = texts("non-en")
    passed = [note[:40] for note in notes if check_text(spaced(note)).english]

    assert len(notes) == 103 and passed == [], passed


def test_a_note_spaced_out_is_refused_for_what_it_is() -> None:
    """In English too: no word can be read, and the refusal says why, not "German"."""
    note = "T h e b u i l d i s g r e e n a g a i n a f t e r t h e c a c h e f i x .\n"

    verdict = check_text(note)

    assert not verdict.english and verdict.language == SPACED_OUT, verdict
    assert "letters spaced out one by one" in problem_message("notes/a.md", verdict)


def test_words_spaced_out_with_a_wider_gap_are_read_as_words() -> None:
    """The model is still given words where a wider gap tells them apart (the note's prose
    has its spaces folded by then: `memidx check` refuses the note as spaced out)."""
    text = "D i e  G r ö ß e  d e r  Ä n d e r u n g  w u r d e  g e p r ü f t"
    assert words_for_the_model(text) == "Die  Größe  der  Änderung  wurde  geprüft"


def test_english_math_with_one_letter_variables_is_not_spaced_out() -> None:
    text = "Let u and v be vectors, a and b scalars. Then a u + b v is in V if u, v are in V."
    verdict = check_text(text)
    assert verdict.english, verdict
