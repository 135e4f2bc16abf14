"""A table's rows end at a line without a pipe: from 07571816 they ran to a blank line, as
GitHub reads them, and what followed a table unread. A paragraph in another language right
after a one-row table passed; so did a whole note after a code block whose last lines are a
table (its closing fence blanked, all that followed read as code)."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from memidx.notes.prose import prose_units
from tests.cpu_cost import least_ratio
from tests.language_notes import SENTENCE, foreign_passing
from tests.unit.test_english_own_notes import PHRASE_COLUMNS, PHRASES

GERMAN = (
    "Wir haben die Sätze gestern mit dem ganzen Team geübt und danach lange besprochen, "
    "weil der Build wieder kaputt war."
)
TABLES = {
    "pipes": "| Key | Value |\n| --- | --- |\n| a | b |\n",
    "no outer pipes": "Key | Value\n--- | ---\na | b\n",
}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_a_paragraph_right_after_a_table_is_read(table: str) -> None:
    text = SENTENCE + TABLES[table] + GERMAN + "\n"
    assert prose_units(text)[-1] == GERMAN
    assert not check_text(text).english


def test_what_follows_a_table_in_a_code_block_is_read() -> None:
    text = SENTENCE + "```\nname | size\n---- | ----\nx | 1\n```\n" + GERMAN + "\n\n" + GERMAN
    assert prose_units(text)[1:] == [GERMAN, GERMAN]
    assert not check_text(text).english


def test_foreign_notes_after_a_one_row_table_are_refused() -> None:
    """103 of the 103 labeled foreign notes passed after a one-row table, 2 before."""
    passed = foreign_passing(
        lambda text: SENTENCE + TABLES["pipes"] + " ".join(prose_units(text)) + "\n"
    )
    assert len(passed) <= 3, passed


def test_a_table_without_outer_pipes_is_still_no_prose() -> None:
    assert prose_units(PHRASES) == ["Phrases", *PHRASE_COLUMNS]
    assert check_text(PHRASES).english


def test_a_line_of_spaces_under_a_pipe_is_read_in_linear_time() -> None:
    """`\\s*\\|?\\s*` in the delimiter row split a line of spaces every way before it failed:
    20,000 spaces and a `|` under a line with a pipe took 3.4 s of CPU, 1 MB would take hours;
    2 ms now. 16x the spaces take at most 16x the CPU time of the fewer read just before
    (not seconds: a slower machine or a busy neighbour slows both); that split, ~256x."""
    large, small = ("a | b\n" + " " * n + "|x\n" for n in (20_000, 1_250))
    least, ratios = least_ratio(lambda: prose_units(large), lambda: prose_units(small), below=64)
    assert least < 64, f"16x the spaces took {ratios}x the time"


@pytest.mark.parametrize(
    "row", ["|---|---|", "| Ein Satz | der lang genug ist, um hier als ein Satz zu zählen |"]
)
def test_delimiter_rows_inside_a_table_are_read_in_linear_time(row: str) -> None:
    """Each delimiter row inside a table started a table again, which read every row after
    it: 4,000 of them (40 KB) took 87 s of CPU in the pre-commit hook, 2,000 took 21 s;
    3 ms before tables' sentences were read, and now. 16x the rows take at most 4x 16x the
    time of the fewer read just before (a ratio: a slower machine slows both); that, ~256x."""
    text = "| a | b |\n" + f"|---|---|\n{row}\n" * 2_000
    fewer = "| a | b |\n" + f"|---|---|\n{row}\n" * 125
    least, ratios = least_ratio(lambda: prose_units(text), lambda: prose_units(fewer), below=64)
    assert least < 64, f"16x the rows took {ratios}x the time"
    units = prose_units(text)
    assert sum("Satz" in unit for unit in units) == (2_000 if "Satz" in row else 0)


def test_a_table_in_indented_code_is_code() -> None:
    """Its lines were read as blank to find code by, so a tool's output shown indented 4
    spaces, a table of German messages, was read as sentences and refused the note as German
    (78%); it is code, as a fenced one is."""
    table = (
        "| Name | Beschreibung |\n|------|--------------|\n"
        "| foo | Die Verbindung wird nach dreißig Sekunden ohne Antwort abgebrochen |\n"
        "| bar | Der Auftrag gilt erst nach drei vergeblichen Versuchen als fehlgeschlagen |\n"
    )
    text = "# Sample output\n\nRun the tool and you get a table like this one:\n\n"
    indented = text + "".join(f"    {line}\n" for line in table.splitlines())
    assert prose_units(indented) == prose_units(text + f"```\n{table}```\n")
    assert check_text(indented).english
