"""A note documenting translations: a table whose header names English and another language
(`| EN | DE |`, `| English | Deutsch |`), its English column English, its German cells longer
than their English. The German cells voted alone (30 bytes of letters and more) and refused
the note as German (65 % to 77 %); under such a header the other languages' columns do not
vote. A table of two foreign notes under that header, or without an English column of
English, is refused as before."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from tests.language_notes import SENTENCE, labeled
from tests.unit.test_table_sentences import runs

ROWS = [
    ("Save the file", "Die Datei auf dem Datenträger dauerhaft speichern"),
    ("Open a file", "Eine vorhandene Datei aus dem Ordner öffnen"),
    ("Quit the app", "Die Anwendung sofort und vollständig beenden"),
    ("Undo the change", "Die letzte Änderung wieder rückgängig machen"),
    ("Show the help", "Die Hilfe zu diesem Fenster jetzt anzeigen"),
]


def table(header: str, rows: list[tuple[str, str]] = ROWS) -> str:
    body = "".join(f"| {a} | {b} |\n" for a, b in rows)
    return f"# Translations\n\nThe strings of the settings screen.\n\n{header}\n|---|---|\n{body}"


@pytest.mark.parametrize(
    "header",
    [
        "| EN | DE |",
        "| English | German |",
        "| English | Deutsch |",
        "| en-US | de-DE |",
        "| English (source) | German |",
    ],
)
def test_a_translation_table_passes(header: str) -> None:
    verdict = check_text(table(header))
    assert verdict.english, verdict


def test_without_a_header_naming_languages_it_is_refused_as_before() -> None:
    verdict = check_text(table("| Source | Target |"))
    assert not verdict.english and verdict.language == "de", verdict


def test_an_english_column_that_is_not_english_votes() -> None:
    german = [(b.split(" ", 2)[-1], b) for _, b in ROWS]
    verdict = check_text(table("| EN | DE |", german))
    assert not verdict.english, verdict


def test_two_foreign_notes_under_a_header_of_languages_are_refused() -> None:
    """Each labeled foreign note beside the next one in another language, in runs of 40
    characters, under `| EN | DE |`: no English column of English, so both vote (5 passed,
    as under `| A | B |`)."""
    notes = [row for row in labeled() if row["label"] == "non-en"]
    passed: list[str] = []
    for at, note in enumerate(notes):
        other = next(o for o in notes[at + 1 :] + notes[:at] if o["lang"] != note["lang"])
        pairs = zip(runs(str(note["text"]), 40), runs(str(other["text"]), 40), strict=False)
        rows = "".join(f"| {a} | {b} |\n" for a, b in pairs)
        if check_text(f"{SENTENCE}| EN | DE |\n| --- | --- |\n{rows}").english:
            passed.append(str(note["text"])[:40])
    assert len(passed) <= 6, passed


GERMAN_PARAGRAPH = (
    "Wenn der Server nicht antwortet, startet die Anwendung neu und der Benutzer muss sich "
    "danach noch einmal mit seinem Passwort anmelden, bevor er weiterarbeiten kann."
)


@pytest.mark.parametrize("header", ["| English | German |", "| EN | DE |"])
def test_a_german_paragraph_in_the_english_column_is_refused(header: str) -> None:
    """A column headed English must hold English: a German paragraph in it, beside the
    table's translations (which do not vote), passed unread."""
    verdict = check_text(table(header, [*ROWS, (GERMAN_PARAGRAPH, "Neustart")]))
    assert not verdict.english and verdict.language == "de", verdict


def test_an_english_sentence_in_the_english_column_still_passes() -> None:
    english = "When the server does not answer, the app restarts and asks for the password again."
    verdict = check_text(table("| English | German |", [*ROWS, (english, "Neustart")]))
    assert verdict.english, verdict
