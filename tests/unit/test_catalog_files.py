"""Message catalogs pasted as their files are written, outside a code block (JSON, YAML,
gettext PO): read line by line as prose, their strings ran together into one paragraph that
voted as their language, so an English note quoting a German catalog was refused (61% to 75%
German). Each is read as the list of pairs it is; a German note quoting one is still refused,
and a foreign note cut behind keys in such a file passes no more often than as a list."""

from __future__ import annotations

import json

import pytest

from memidx.notes.catalog_files import catalog_lines
from memidx.notes.english import check_text
from tests.language_notes import SENTENCE, foreign_passing, pieces
from tests.unit.test_message_catalogs import KEYS

EN = "# German strings\n\nThe German translation of the settings page, as translators sent it.\n\n"
DE = (
    "# Deutsche Texte\n\nDie deutsche Übersetzung der Einstellungsseite, wie sie die Übersetzer "
    "geschickt haben. Bitte vor dem Release noch einmal prüfen und fehlende Texte ergänzen.\n\n"
)
STRINGS = {
    "settings.title": "Einstellungen",
    "settings.save": "Änderungen speichern",
    "settings.delete": "Ihr Konto löschen",
    "errors.network": "Keine Verbindung zum Server möglich",
    "errors.retry": "Bitte versuchen Sie es später erneut",
}
SOURCES = ["Settings", "Save changes", "Delete account", "Cannot reach the server", "Try later"]
NESTED = {"settings": {k[9:]: v for k, v in STRINGS.items() if k.startswith("settings.")}} | {
    "errors": {k[7:]: v for k, v in STRINGS.items() if k.startswith("errors.")}
}
FILES = {
    "PO": "".join(
        f'#: src/settings.py:{n}\nmsgid "{source}"\nmsgstr "{text}"\n\n'
        for n, (source, text) in enumerate(zip(SOURCES, STRINGS.values(), strict=True))
    ),
    "PO by keys": "".join(f'msgid "{k}"\nmsgstr "{v}"\n\n' for k, v in STRINGS.items()),
    "JSON": json.dumps(STRINGS, ensure_ascii=False, indent=2) + "\n",
    "JSON on one line": json.dumps(STRINGS, ensure_ascii=False) + "\n",
    "JSON nested": json.dumps(NESTED, ensure_ascii=False, indent=2) + "\n",
    "YAML": "".join(f"{k}: {v}\n" for k, v in STRINGS.items()),
    "YAML nested": "de:\n"
    + "".join(
        f"  {area}:\n" + "".join(f'    {k}: "{v}"\n' for k, v in strings.items())
        for area, strings in NESTED.items()
    ),
}


@pytest.mark.parametrize("fence", ["", "```\n"])
@pytest.mark.parametrize("name", sorted(FILES))
def test_an_english_note_quoting_a_german_catalog_passes(name: str, fence: str) -> None:
    verdict = check_text(EN + fence + FILES[name] + fence)
    assert verdict.english, verdict


@pytest.mark.parametrize("fence", ["", "```\n"])
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_german_note_quoting_a_catalog_is_refused(name: str, fence: str) -> None:
    verdict = check_text(DE + fence + FILES[name] + fence)
    assert not verdict.english and verdict.language == "de", verdict


@pytest.mark.parametrize("size", [2, 4])
def test_foreign_notes_cut_behind_keys_in_a_json_file_are_refused(size: int) -> None:
    """As behind keys in a list (`- web.cart.empty: ...`), a catalog's strings must be whole:
    3 to 6 of 103 pass, as in the list (2 when the file was one paragraph)."""
    passed = foreign_passing(
        lambda text: (
            SENTENCE
            + json.dumps(dict(zip(KEYS, pieces(text, size), strict=False)), ensure_ascii=False)
        )
    )
    assert len(passed) <= 7, passed


@pytest.mark.parametrize("depth", [1000, 100_000])
def test_json_nested_past_the_recursion_limit_is_read_as_prose(depth: int) -> None:
    """json.loads raises RecursionError, not ValueError, past ~1,000 levels: the check ended
    in a traceback on such a note, outside a code block, instead of a verdict."""
    deep = '{"a":' * depth + '"Einstellungen", "b": "Speichern"' + "}" * depth
    assert catalog_lines(["The strings:", deep]) == {}
    assert check_text(EN + deep + "\n").reason  # a verdict, as on any other prose


@pytest.mark.parametrize("msgid", ["Save changes", "it is the"])
@pytest.mark.parametrize("size", [2, 4])
def test_foreign_notes_cut_behind_one_msgid_repeated_are_refused(size: int, msgid: str) -> None:
    """One English msgid before each piece (`msgid "Save changes"`) is a slot, not a catalog:
    read as a phrase list's two paragraphs, 63 of 103 passed in pieces of two words and 15 in
    pieces of four (`it is the`, of function words only: 23 and 3); as the list, 3."""
    passed = foreign_passing(
        lambda text: (
            SENTENCE
            + "".join(f'msgid "{msgid}"\nmsgstr "{piece}"\n\n' for piece in pieces(text, size))
        )
    )
    assert len(passed) <= 6, passed


def test_a_msgid_repeated_under_another_msgctxt_is_still_a_catalog() -> None:
    """gettext keeps one msgid under several msgctxt (`Open` of a menu and of a dialog): the
    PO is still read as its sources and strings, not as a list by its strings (64% German)."""
    entries = [
        ('msgctxt "menu"\n', "Open", "Öffnen"),
        ('msgctxt "dialog"\n', "Open", "Öffnen Sie die Datei"),
        ("", "Save changes", "Änderungen speichern"),
        ("", "Delete account", "Ihr Konto löschen"),
        ("", "Cannot reach the server", "Keine Verbindung zum Server möglich"),
    ]
    po = "".join(f'{ctx}msgid "{source}"\nmsgstr "{text}"\n\n' for ctx, source, text in entries)
    verdict = check_text(EN + po)
    assert verdict.english, verdict
