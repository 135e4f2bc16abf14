# Turkish and Polish strings, not look-alikes of Latin letters.
# ruff: noqa: RUF001
"""A message catalog's strings are whole: a Turkish one ending in `yok` ("there is none"),
and a Polish message of seven words among buttons, made the catalog read as prose cut in
pieces (a string ending in a function word; a string of more than six words), and both were
refused as Turkish and Polish. Prose cut in pieces behind message keys is still refused."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from memidx.notes.slots import numbered
from tests.language_notes import SENTENCE, foreign_passing, pieces
from tests.unit.test_message_catalogs import KEYS, capitalised, catalog, runs

HEAD = "# i18n keys\n\nThe strings of the settings page, as the translators sent them.\n\n"
CATALOGS = {
    "tr, ending in yok": {
        "settings.title": "Hesap ayarları",
        "settings.save": "Değişiklikleri kaydet",
        "settings.empty": "Henüz kayıt yok",
        "settings.delete": "Hesabınızı silin",
        "settings.profile": "Profil bilgileriniz",
        "settings.language": "Dil seçimi",
    },
    "de, ending in nicht": {
        "files.title": "Dateien",
        "files.upload": "Datei hochladen",
        "files.missing": "Die Datei existiert nicht",
        "files.delete": "Datei löschen",
        "files.rename": "Umbenennen",
    },
    "de, ending in werden": {
        "upload.title": "Datei hochladen",
        "upload.failed": "Die Datei konnte nicht hochgeladen werden",
        "settings.saved": "Einstellungen gespeichert",
        "settings.error": "Die Änderungen konnten nicht gespeichert werden",
        "profile.delete": "Konto löschen",
    },
    "pl, a message of seven words": {
        "profile.title": "Twój profil",
        "profile.save": "Zapisz zmiany",
        "profile.saved": "Zmiany zostały zapisane",
        "profile.error": "Nie udało się zapisać zmian w profilu",
        "profile.avatar": "Zmień zdjęcie",
    },
}


@pytest.mark.parametrize("name", sorted(CATALOGS))
def test_a_catalog_of_whole_strings_passes(name: str) -> None:
    lines = "".join(f"- {key}: {value}\n" for key, value in CATALOGS[name].items())
    verdict = check_text(HEAD + lines)
    assert verdict.english, verdict


def test_a_catalog_whose_last_string_closes_passes() -> None:
    """A closing word on the last of five strings or more is no cut's end either."""
    items = sorted(CATALOGS["tr, ending in yok"].items(), key=lambda item: "yok" in item[1])
    verdict = check_text(HEAD + "".join(f"- {key}: {value}\n" for key, value in items))
    assert items[-1][1].endswith("yok") and verdict.english, verdict


def test_two_pieces_of_a_note_ending_as_its_sentence_does_are_refused() -> None:
    """Two pieces hold too little to tell a catalog from a cut sentence, whose last piece ends
    where the sentence ends (`Sorun yok`): a closing word is a cut's end there."""
    lines = (
        "- web.settings.title: Cache temizlenince build düzeldi tekrar denedim\n"
        "- web.settings.save: Sorun yok\n"
    )
    assert not check_text(SENTENCE + lines).english


def test_a_catalog_of_only_long_strings_is_refused() -> None:
    """A long string is a message among buttons: three of them in five are prose."""
    values = [
        "Nie udało się zapisać zmian w profilu",
        "Twój koszyk jest pusty więc dodaj coś teraz",
        "Płatność została odrzucona przez bank wystawcy karty",
        "Zapisz zmiany",
        "Wróć",
    ]
    lines = "".join(f"- {KEYS[n]}: {value}\n" for n, value in enumerate(values))
    assert not check_text(SENTENCE + lines).english


@pytest.mark.parametrize(("most", "bound"), [(40, 10), (50, 2)])
def test_foreign_notes_cut_in_long_runs_behind_named_keys_are_refused(
    most: int, bound: int
) -> None:
    """Runs of 40 and 50 characters, hand-capitalised, behind distinct keys: 10 and 2 of 103
    pass, as before a catalog's string could be longer than six words (14 and 5 when one in
    four could, whatever the others were)."""
    item = "- {key}: {value}\n"
    passed = foreign_passing(
        lambda text: SENTENCE + catalog(capitalised(runs(text, most))[: len(KEYS)], item)
    )
    assert len(passed) <= bound, passed


@pytest.mark.parametrize(
    ("keys", "slots"),
    [
        (["settings.key1", "settings.key2", "settings.key3"], True),
        (["settings.key2", "settings.key4", "settings.key6"], True),
        (["settings.key10", "settings.key20", "settings.key40"], True),
        (["errors.http401", "errors.http403", "errors.http404", "errors.http500"], False),
        (["units.km", "units.m3", "units.cm"], False),
    ],
)
def test_keys_counted_off_in_any_step_are_slots(keys: list[str], slots: bool) -> None:
    assert numbered(keys) is slots


@pytest.mark.parametrize("step", [2, 10])
@pytest.mark.parametrize("size", [2, 4, 6])
def test_foreign_notes_behind_keys_counted_in_steps_are_refused(step: int, size: int) -> None:
    """`settings.key2`, `settings.key4`...: 15, 16 and 19 of 103 passed in pieces of 2, 4 and 6
    words, hand-capitalised; 6, 5 and 11 now, as behind `settings.key1`, `settings.key2`."""
    passed = foreign_passing(
        lambda text: (
            SENTENCE
            + "".join(
                f"- settings.key{(n + 1) * step}: {value}\n"
                for n, value in enumerate(capitalised(pieces(text, size)))
            )
        )
    )
    assert len(passed) <= 11, passed


ONBOARDING = ["ようこそ", "アカウントを作成", "通知を設定", "準備完了"]


@pytest.mark.parametrize(("form", "english"), [("{}", False), ("`{}`", True)])
def test_strings_behind_numbered_keys_vote_unless_in_backticks(form: str, english: bool) -> None:
    """By design (README): numbered keys are slots, so their strings vote; the refusal says
    to keep such text in backticks or a code block, which the check skips."""
    lines = "".join(
        f"- onboarding.step{n}.title: {form.format(value)}\n"
        for n, value in enumerate(ONBOARDING, start=1)
    )
    verdict = check_text(HEAD + lines)
    assert verdict.english is english, verdict


NAMED_STRINGS = {
    "menu.title": "Einstellungen",
    "dialog.save": "Speichern",
    "errors.retry": "Erneut versuchen",
    "profile.delete": "Ihr Konto und alle Ihre Daten sind danach für immer weg",
}


def test_a_catalog_whose_strings_are_names_is_read_whole() -> None:
    """Its one-word strings are names (`key: Name`): read by their labels as a glossary's
    names first, they left two strings, a message among them, that were no catalog and voted:
    refused as German (58%)."""
    head = "# i18n keys\n\nThe German strings of the settings page.\n\n"
    verdict = check_text(head + "".join(f"- {k}: {v}\n" for k, v in NAMED_STRINGS.items()))
    assert verdict.english, verdict
