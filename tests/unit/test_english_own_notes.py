"""English notes their authors could not commit: a Japanese UI glossary with one term longer
than 12 characters (that item voted alone, 100% ja), an office's addresses in German (`Straße
des 17. Juni` read with its label, the list as German) and a table of phrases written without
leading pipes (its rows read as prose, 100% de). Each beside the foreign note it resembles."""

from __future__ import annotations

from memidx.notes.english import check_text
from memidx.notes.prose import prose_units

JAPANESE_GLOSSARY = """# Japanese UI glossary

Strings for the settings page.

- Open: 開く
- Close: 閉じる
- Search: 検索
- Delete account: アカウントを完全に削除する
"""

ADDRESSES = """# Addresses

The office moved.

- Berlin: Straße des 17. Juni
- Bonn: Platz der Vereinten Nationen
"""

PHRASES = """# Phrases

English | German
--- | ---
Good morning | Guten Morgen
Thank you very much | Vielen Dank
Where is the train station? | Wo ist der Bahnhof?
I would like a coffee | Ich möchte einen Kaffee
"""
# under a header naming English and German, a table of translations: data, no prose that
# votes (table_columns.translated_columns)
PHRASE_COLUMNS: list[str] = []


MESSAGE_KEYS = """# i18n keys

New keys for de.json:

- settings.title: Einstellungen
- settings.save: Änderungen speichern
- settings.delete: Ihr Konto löschen
- settings.language: Sprache der Oberfläche
"""


def test_german_strings_beside_their_message_keys_pass() -> None:
    verdict = check_text(MESSAGE_KEYS)
    assert verdict.english, verdict


def test_german_sentences_beside_message_keys_still_vote() -> None:
    """A value longer than 60 characters is no item `label: value`: it votes as it is."""
    items = [
        "schritt.eins: Bitte vor dem Push immer alle Tests lokal ausführen, auch die langsamen",
        "schritt.zwei: Die Integrationstests brauchen Docker und dauern etwa zwölf Minuten",
    ]
    verdict = check_text("# Notizen\n\n" + "".join(f"- {item}\n" for item in items))
    assert not verdict.english, verdict


def test_a_japanese_glossary_with_one_longer_term_passes() -> None:
    verdict = check_text(JAPANESE_GLOSSARY)
    assert verdict.english, verdict


def test_a_longer_term_than_its_label_still_votes() -> None:
    """The longer term is a term only beside a label of as many letters: prose is not."""
    term, prose = (
        "- Delete account: アカウントを完全に削除する",
        "- Delete: アカウントを完全に削除するとすべて",
    )
    verdict = check_text(JAPANESE_GLOSSARY.replace(term, prose))
    assert not verdict.english, verdict


def test_addresses_with_lower_case_particles_pass() -> None:
    verdict = check_text(ADDRESSES)
    assert verdict.english, verdict


def test_a_table_without_leading_pipes_is_no_prose() -> None:
    assert prose_units(PHRASES) == ["Phrases", *PHRASE_COLUMNS]
    verdict = check_text(PHRASES)
    assert verdict.english, verdict


def test_a_table_ends_at_a_blank_line() -> None:
    text = PHRASES + "\nWir haben die Sätze gestern mit dem ganzen Team geübt und besprochen.\n"
    assert prose_units(text)[1:] == [
        "Wir haben die Sätze gestern mit dem ganzen Team geübt und besprochen."
    ]
    assert not check_text(text).english


def test_a_pipe_in_a_paragraph_is_no_table() -> None:
    assert prose_units("Use a | b to pipe.\nThen read the output.\n") == [
        "Use a b to pipe. Then read the output."
    ]
