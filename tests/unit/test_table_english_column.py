"""A table's column of short English cells did not vote beside a column of another language's:
English's function words (`the`, `you`) were not among those that make short cells prose, so
an English note's translation table (`Save the file` beside `Die Datei speichern`) was refused
for its German alone; and an English column holding `a`, `to` or `do` (Czech, Polish words too)
read as a glossary's other language, so nothing voted and a foreign note cut in cells beside
two English words a row passed (19 of the labeled 103 in runs of 30 characters, now 7).
An English column cut in cells now votes, weighing its letters, and is no glossary's."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from tests.language_notes import SENTENCE, WORD, texts
from tests.unit.test_table_sentences import runs

TRANSLATIONS = """# Translations

We ship German strings for the settings screen.

| Key | English | German |
|---|---|---|
| save | Save the file | Die Datei speichern |
| open | Open a file | Eine Datei öffnen |
| quit | Quit the app | Die App beenden |
| undo | Undo the change | Die Änderung rückgängig machen |
| help | Show the help | Die Hilfe anzeigen |
"""


def test_an_english_notes_translation_table_passes() -> None:
    """Refused as German (70%) when only the German column voted."""
    verdict = check_text(TRANSLATIONS)
    assert verdict.english, verdict


@pytest.mark.parametrize(("most", "bound"), [(30, 10)])
def test_foreign_notes_cut_in_cells_beside_english_words_are_refused(most: int, bound: int) -> None:
    """Two words of an English note (the labeled ones in turn) beside each run of 30
    characters: 19 of 103 passed, now 7 (in runs of 20, 23 then 19, the English weighing as
    much as the runs; three words beside runs of 20, 41 then 44, the English outweighing)."""
    english, notes = texts("en"), texts("non-en")
    passed: list[str] = []
    for at, text in enumerate(notes):
        words = WORD.findall(english[at % len(english)] * 5)
        rows = "".join(
            f"| {' '.join(words[2 * n : 2 * n + 2])} | {run} |\n"
            for n, run in enumerate(runs(text, most))
        )
        if check_text(f"{SENTENCE}| English | Text |\n| --- | --- |\n{rows}").english:
            passed.append(text[:40])
    assert len(notes) == 103 and len(passed) <= bound, passed
