"""Columns of short cells in two languages with no likeliest language in common are a
glossary's translations and do not vote; but two foreign notes cut in runs side by side (a
German note beside a French one) are that too, and passed 61 and 36 of the labeled 103 in
runs of 20 and 30 characters. A glossary's cells are whole strings; a column a fourth of whose
cells begin in lower case or end in a function word is pieces cut from prose, and votes."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from tests.language_notes import SENTENCE, labeled
from tests.unit.test_table_cells import GLOSSARY
from tests.unit.test_table_sentences import runs


@pytest.mark.parametrize(("most", "bound"), [(20, 8), (30, 7)])
def test_two_foreign_notes_side_by_side_in_cells_are_refused(most: int, bound: int) -> None:
    """Each labeled foreign note beside the next one in another language: 61 and 36 of 103
    passed, now 5 and 4."""
    notes = [row for row in labeled() if row["label"] == "non-en"]
    passed: list[str] = []
    for at, note in enumerate(notes):
        other = next(o for o in notes[at + 1 :] + notes[:at] if o["lang"] != note["lang"])
        pairs = zip(runs(str(note["text"]), most), runs(str(other["text"]), most), strict=False)
        rows = "".join(f"| {a} | {b} |\n" for a, b in pairs)
        if check_text(f"{SENTENCE}| A | B |\n| --- | --- |\n{rows}").english:
            passed.append(str(note["text"])[:40])
    assert len(notes) == 103 and len(passed) <= bound, passed


def test_a_glossarys_whole_strings_still_do_not_vote() -> None:
    verdict = check_text(GLOSSARY)
    assert verdict.english, verdict


ERRORS = """# Error glossary

Use these strings as they are; translators get this table as context.

| key | en | de | fr |
|-----|----|----|----|
| missing | File not found | Datei existiert nicht | Le fichier n'existe pas |
| denied | Access denied | Zugriff verweigert | Accès refusé |
| offline | Server is not answering | Server antwortet nicht | Le serveur ne répond pas |
| empty | No records yet | Noch keine Einträge | Aucun enregistrement |
| saved | Changes saved | Änderungen gespeichert | Modifications enregistrées |
"""


def test_a_glossarys_strings_ending_in_a_negation_are_whole() -> None:
    """`nicht`, `pas` close a sentence: read as cut pieces, this glossary was refused as German."""
    verdict = check_text(ERRORS)
    assert verdict.english, verdict
