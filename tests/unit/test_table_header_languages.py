"""A table's header names languages only by cells that are a language's code or name alone:
its first word was read, so `| No | English |`, `| ID | English |` and `| Polish notation |
English |` were taken for tables of translations, their English column did not vote, and a
German line after it refused the note."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from memidx.notes.table_columns import header_languages

ROWS = [
    "Open the settings page before you start the tour.",
    "Choose the language that the team speaks at work.",
    "Save the file and close the editor when you are done.",
    "Ask the lead when a test fails on the main branch.",
]
GERMAN_LINE = "Die Übersetzung ins Deutsche folgt später, wenn das Team sie geprüft hat.\n"


@pytest.mark.parametrize(
    ("header", "first"),
    [
        ("| No | English |", "{at}"),
        ("| ID | English |", "{at}"),
        ("| It | English |", "{at}"),
        ("| Polish notation | English |", "3 4 +"),
    ],
)
def test_a_table_of_english_under_a_header_naming_no_second_language_votes(
    header: str, first: str
) -> None:
    body = "".join(f"| {first.format(at=at)} | {row} |\n" for at, row in enumerate(ROWS, 1))
    verdict = check_text(f"# Onboarding phrases\n\n{header}\n|---|---|\n{body}\n{GERMAN_LINE}")
    assert verdict.english, verdict


@pytest.mark.parametrize(
    ("header", "named"),
    [
        (["id", "name"], [None, None]),
        (["ID", "English"], [None, "en"]),
        (["No.", "English"], [None, "en"]),
        (["English docs", "German"], [None, "other"]),
        (["en", "it"], ["en", None]),  # `it` beside English alone: a column's word
        (["en", "de", "it"], ["en", "other", "other"]),
        (["EN (source)", "de-DE", "pt_BR"], ["en", "other", "other"]),
        (["English text", "German translation"], ["en", "other"]),
        (["it-IT", "en-US"], ["other", "en"]),
    ],
)
def test_a_header_cell_names_a_language_alone(header: list[str], named: list[str]) -> None:
    assert header_languages(header) == named
