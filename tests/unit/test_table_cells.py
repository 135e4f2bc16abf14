"""A foreign note cut in runs of a few words in a table's cells passed: a cell under 30 bytes of
letters does not vote (a label, a term), so 59 to 83 of the 103 labeled foreign notes passed in
runs of 12 to 30 characters. A column of such cells is prose when a fourth of them, two at
least, hold a function word of a listed language, as labels, terms and UI strings seldom do:
it is read as one paragraph. Columns of prose in different languages are a glossary's
translations and do not vote (read, an English i18n glossary was refused as French)."""

from __future__ import annotations

import pytest

from memidx.notes import prose
from memidx.notes.english import check_text
from memidx.notes.prose import prose_units
from tests.language_notes import SENTENCE, foreign_passing, texts
from tests.unit.test_table_sentences import runs

TABLES = {
    "keys first": ("| Key | Text |\n| --- | --- |\n", "| k{n} | {run} |\n"),
    "keys last": ("| Text | Key |\n| --- | --- |\n", "| {run} | k{n} |\n"),
    "one column": ("| Text |\n| --- |\n", "| {run} |\n"),
}


@pytest.mark.parametrize("kind", sorted(TABLES))
@pytest.mark.parametrize(("most", "bound"), [(12, 14), (20, 7), (30, 6)])
def test_foreign_notes_in_short_cells_are_refused(kind: str, most: int, bound: int) -> None:
    """Measured (keys first, keys last, one column): 81, 83, 83 of 103 passed in runs of 12
    characters; 72 in runs of 20; 59, 62, 62 in runs of 30. Now 12-14, 6 and 5."""
    head, row = TABLES[kind]
    passed = foreign_passing(
        lambda text: (
            SENTENCE
            + head
            + "".join(row.format(n=n, run=r) for n, r in enumerate(runs(text, most)))
        )
    )
    assert len(passed) <= bound, passed


GLOSSARY = """# Checkout glossary

Use these strings as they are; translators get this table as context.

| key | en | de | fr | es |
|-----|----|----|----|----|
| cart | Cart | Warenkorb | Panier | Carrito |
| shipping | Shipping address | Lieferadresse | Adresse de livraison | Dirección de envío |
| failed | Payment failed | Zahlung fehlgeschlagen | Le paiement a échoué | El pago ha fallado |
| thanks | Thank you | Vielen Dank | Merci pour votre commande | Gracias por tu pedido |
| back | Back to the shop | Zurück zum Shop | Retour à la boutique | Volver a la tienda |
"""

UI_STRINGS = """# Settings strings

The German strings of the settings page.

| Key | German |
|---|---|
| open | Datei öffnen |
| save | Änderungen speichern |
| delete | Konto löschen |
| language | Sprache |
"""


@pytest.mark.parametrize("text", [GLOSSARY, UI_STRINGS], ids=["translations", "UI strings"])
def test_glossary_tables_pass(text: str) -> None:
    assert prose_units(text)[2:] == []
    verdict = check_text(text)
    assert verdict.english, verdict


def test_a_column_of_one_foreign_language_is_read_as_a_paragraph() -> None:
    text = SENTENCE + "| Key | Text |\n|---|---|\n| a | bitte vor dem |\n| b | push immer |\n"
    text += "| c | alle Tests lokal |\n| d | ausführen und die |\n"
    assert prose_units(text)[1:] == [
        "bitte vor dem\npush immer\nalle Tests lokal\nausführen und die"
    ]
    assert check_text(text).language == "de"


def test_each_cell_of_a_table_is_cleaned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cell was cleaned twice, once for its sentences and once for its row, and its
    letters counted three times: a 1 MB table of sentences took 0.83 s (its Markdown 0.18 s),
    0.74 s now (0.12 s), measured on 2 cores at a load of 22."""
    cleaned: list[str] = []
    clean = prose.clean_inline

    def counted(cell: str) -> str:
        cleaned.append(cell)
        return clean(cell)

    monkeypatch.setattr(prose, "clean_inline", counted)
    rows = "".join(
        f"| k{n} | The cache was cold when the build started again |\n" for n in range(50)
    )
    prose_units("| Key | Text |\n| --- | --- |\n" + rows)
    assert len(cleaned) == 2 * 52, len(cleaned)


@pytest.mark.parametrize("most", [20, 30])
def test_foreign_notes_over_two_columns_are_refused(most: int) -> None:
    """Runs of 20 and 30 characters, two to a row: 72 and 62 of 103 passed; 23 when a column's
    language was the first of those its function words tie for (`de la`: French or Spanish?),
    19 now: columns are translations only when no language is the likeliest of both. The rest
    are mostly short notes, a row or two, too few cells to say."""
    notes = texts("non-en")
    passed: list[str] = []
    for text in notes:
        found = runs(text, most)
        cells = "".join(f"| {a} | {b} |\n" for a, b in zip(found[::2], found[1::2], strict=False))
        if check_text(SENTENCE + "| A | B |\n|---|---|\n" + cells).english:
            passed.append(text[:40])
    assert len(notes) == 103 and len(passed) <= 19, passed
