"""A table's cells holding 30 bytes of letters or more are sentences and vote as paragraphs do:
a note written as a table of German sentences passed unread ("no prose to judge"). Labels,
terms, numbers and code in cells do not vote, in whatever language; a table of two columns
holding a sentence is read as the list of `label: value` items it is."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from memidx.notes.prose import prose_units
from tests.language_notes import SENTENCE, WORD, foreign_passing
from tests.unit.test_english_own_notes import PHRASES

GERMAN_ROWS = [
    "Die Verbindung wird nach dreißig Sekunden ohne Antwort abgebrochen",
    "Der Auftrag gilt erst nach drei vergeblichen Versuchen als fehlgeschlagen",
]


def _table(rows: list[str], *, pipes: bool = True) -> str:
    lines = ["Key | Text", "--- | ---", *(f"k{n} | {row}" for n, row in enumerate(rows))]
    return "".join(f"| {line} |\n" if pipes else f"{line}\n" for line in lines)


@pytest.mark.parametrize("pipes", [True, False])
def test_a_table_of_german_sentences_is_refused_as_german(pipes: bool) -> None:
    verdict = check_text(SENTENCE + _table(GERMAN_ROWS, pipes=pipes))
    assert (verdict.english, verdict.language) == (False, "de"), verdict


def test_a_table_of_three_columns_reads_its_sentences() -> None:
    text = "| Key | Default | Text |\n|---|---|---|\n" + "".join(
        f"| `k{n}` | {n} | {row} |\n" for n, row in enumerate(GERMAN_ROWS)
    )
    assert prose_units(text) == GERMAN_ROWS
    assert check_text(text).language == "de"


def runs(text: str, most: int) -> list[str]:
    """The words of a note's prose in runs of at most `most` characters."""
    found = [""]
    for word in WORD.findall(" ".join(prose_units(text))):
        fits = len(found[-1]) + 1 + len(word) <= most
        found[-1:] = [f"{found[-1]} {word}".strip()] if fits or not found[-1] else [found[-1], word]
    return found


@pytest.mark.parametrize(("most", "allowed"), [(40, 12), (55, 3), (80, 4)])
def test_foreign_notes_written_as_tables_of_sentences_are_refused(most: int, allowed: int) -> None:
    """Runs of the labeled foreign notes' words in a table's cells under an English sentence:
    103 of 103 passed at every length; measured now 10 (runs of 40 characters, most of them
    under 30 bytes of letters: labels), 2 and 3."""
    passed = foreign_passing(lambda text: SENTENCE + _table(runs(text, most)))
    assert len(passed) <= allowed, passed


JAPANESE_GLOSSARY = """# Japanese UI glossary

Strings for the settings page.

| English | Japanese |
| --- | --- |
| Open | 開く |
| Close | 閉じる |
| Search | 検索 |
| Delete account | アカウントを完全に削除する |
"""

SETTINGS = """# Deploy settings

How the deploy job reads its settings, each one with its default and what it means.

| Setting | Default | Meaning |
|---|---|---|
| `timeout` | 30 | Seconds before the connection is dropped and the job fails |
| `retries` | 3 | Attempts before the job is marked as failed for good |
| `region` | `eu-west-1` | Where the artifacts are stored |
"""

LABELS = {
    "german": "| Feld | Wert |\n|---|---|\n| Zeitüberschreitung | 30 s |\n| Wiederholungen | 3 |\n"
    "| Region | `eu-west-1` |\n| Speicherort | `s3://builds/de` |\n",
    "russian": "| Поле | Значение |\n|---|---|\n| Сервер | `db-01` |\n| Порт | 5432 |\n"
    "| Пользователь | `deploy` |\n",
    "chinese": "| 名称 | 值 |\n|---|---|\n| 超时 | 30 |\n| 重试次数 | 3 |\n"
    "| 区域 | `cn-north-1` |\n",
    "code": "| Call | Returns |\n|---|---|\n| `load(path)` | `Config` |\n"
    "| `save(cfg, path)` | `None` |\n| `merge(a, b)` | `Config` |\n",
}


@pytest.mark.parametrize("kind", sorted(LABELS))
def test_a_table_of_labels_numbers_and_code_beside_english_prose_passes(kind: str) -> None:
    text = (
        "# Staging database\n\nThe staging database moved to the new cluster last week; "
        f"these are its settings as the vendor's console shows them.\n\n{LABELS[kind]}"
    )
    verdict = check_text(text)
    assert verdict.english, verdict


@pytest.mark.parametrize("text", [SETTINGS, JAPANESE_GLOSSARY, PHRASES])
def test_english_tables_pass(text: str) -> None:
    verdict = check_text(text)
    assert verdict.english, verdict


def test_a_quoted_table_of_sentences_is_someone_elses() -> None:
    """A table in a block quote is read with the quotes, as the rest of a block quote is."""
    quoted = "".join(f"> {line}\n" for line in _table(GERMAN_ROWS).splitlines())
    text = SENTENCE + quoted
    assert prose_units(text, quotes=False) == [SENTENCE.strip()]
    assert prose_units(text)[1:] == GERMAN_ROWS


TRANSLATIONS = [
    ("Könnten Sie das bitte noch einmal erklären", "Could you please explain that once more"),
    ("Wir verschieben das Release auf nächste Woche", "We are moving the release to next week"),
    ("Der Build ist seit heute Morgen wieder grün", "The build has been green again since today"),
]


@pytest.mark.parametrize("german_first", [True, False])
def test_a_table_of_sentences_and_their_translations_weighs_both(german_first: bool) -> None:
    """Read as `label: value` items, each row was its value alone: the German half (English
    first) or a German label beside its English (German first) refused the note."""
    rows = [(de, en) if german_first else (en, de) for de, en in TRANSLATIONS]
    text = (
        "# Phrases for the Berlin team\n\nPhrases we use in the standup with the Berlin team.\n\n"
        "| German | English |\n| --- | --- |\n" + "".join(f"| {a} | {b} |\n" for a, b in rows)
    )
    # under a header naming English and German, a table of translations is data when its
    # English column is English (German first: the header says where the English is)
    voting = [] if german_first else [c for r in rows for c in r]
    assert prose_units(text)[2:] == voting
    verdict = check_text(text)
    assert verdict.english, verdict


PHRASEBOOK = [
    ("¿Dónde está la estación de tren más cercana?", "Where is the nearest train station?"),
    ("Me gustaría reservar una mesa para dos personas", "I would like to book a table for two"),
    ("¿Cuánto cuesta un billete de ida y vuelta?", "How much is a return ticket?"),
    ("¿Puede hablar un poco más despacio, por favor?", "Could you speak more slowly?"),
]


SHORT_SPANISH = [
    ("Where can I find the nearest train station", "¿Dónde está la estación?"),
    ("I would like to book a table for two people", "Una mesa para dos"),
    ("How much does a return ticket cost today", "¿Cuánto cuesta el billete?"),
    ("Could you please speak a little more slowly", "Más despacio, por favor"),
]


@pytest.mark.parametrize(
    "rows",
    [
        pytest.param(PHRASEBOOK, id="Spanish beside shorter English"),
        pytest.param([(en, es) for es, en in PHRASEBOOK], id="shorter English first"),
        pytest.param(SHORT_SPANISH, id="English beside shorter Spanish"),
    ],
)
def test_sentences_beside_shorter_translations_weigh_both(rows: list[tuple[str, str]]) -> None:
    """Translations under 30 bytes of letters did not vote beside their sentences: a phrasebook
    of Spanish sentences and their English was refused as Spanish (70%); they are read
    together now, as one paragraph of the table's second column."""
    head = "# Spanish phrases for the trip\n\nPhrases I practised before the Madrid conference, "
    table = "".join(f"| {a} | {b} |\n" for a, b in rows)
    verdict = check_text(f"{head}with what they mean.\n\n| A | B |\n|---|---|\n{table}")
    assert verdict.english, verdict


@pytest.mark.parametrize(("most", "allowed"), [(40, 14), (55, 3), (80, 4)])
def test_foreign_sentences_before_their_keys_are_refused(most: int, allowed: int) -> None:
    """As above, the sentences in the first column, a key in the second: read cell by cell,
    not as `sentence: key` items (which let 18 and 6 pass), 14 (runs of 40), 3 and 4 pass."""
    passed = foreign_passing(
        lambda text: (
            SENTENCE
            + "| Text | Key |\n| --- | --- |\n"
            + "".join(f"| {run} | k{n} |\n" for n, run in enumerate(runs(text, most)))
        )
    )
    assert len(passed) <= allowed, passed
