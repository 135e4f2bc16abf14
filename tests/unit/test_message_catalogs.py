"""A foreign note cut in pieces behind dotted message keys (`- settings.key3: bitte vor dem`)
was read as a message catalog, each item by its key alone: 97 to 103 of the 103 labeled
foreign notes passed, with or without a line of English; 3 to 6 now, as with no keys (short
notes). A catalog's strings are short, begin with a capital and are no prose cut in pieces."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from tests.language_notes import SENTENCE, foreign_passing, pieces
from tests.unit.test_english_own_notes import MESSAGE_KEYS

# distinct keys naming strings, as a catalog's do
AREAS = ("settings", "errors", "cart", "profile", "dialog", "menu", "search", "login")
NAMES = ("title", "save", "delete", "cancel", "empty", "retry", "network", "help")
KEYS = [f"{app}.{area}.{name}" for app in ("web", "ios") for area in AREAS for name in NAMES]


def runs(text: str, most: int) -> list[str]:
    """The words of the note's prose in runs of at most `most` characters."""
    found = [""]
    for word in pieces(text, 1):
        fits = len(found[-1]) + 1 + len(word) <= most
        found[-1:] = [f"{found[-1]} {word}".strip()] if fits or not found[-1] else [found[-1], word]
    return found


def catalog(values: list[str], item: str = "- settings.key{n}: {value}\n") -> str:
    return "".join(item.format(n=n, key=KEYS[n % len(KEYS)], value=v) for n, v in enumerate(values))


@pytest.mark.parametrize("most", [8, 12, 20, 30, 40])
@pytest.mark.parametrize("lead", [SENTENCE, ""])
def test_foreign_notes_cut_behind_message_keys_are_refused(most: int, lead: str) -> None:
    passed = foreign_passing(lambda text: lead + catalog(runs(text, most)))
    assert len(passed) <= 7, passed


@pytest.mark.parametrize("size", [1, 2, 3])
def test_foreign_words_behind_message_keys_are_refused(size: int) -> None:
    passed = foreign_passing(lambda text: SENTENCE + catalog(pieces(text, size)))
    assert len(passed) <= 7, passed


def test_a_german_paragraph_behind_message_keys_is_refused() -> None:
    prose = (
        "bitte vor dem push immer alle tests lokal ausführen denn die integrationstests "
        "brauchen docker und dauern etwa zwölf minuten auf dem server"
    )
    words = prose.split(" ")
    values = [" ".join(words[i : i + 3]) for i in range(0, len(words), 3)]
    verdict = check_text("# i18n keys\n\nNew keys for de.json:\n\n" + catalog(values))
    assert not verdict.english, verdict


CATALOGS = {
    "de": MESSAGE_KEYS,
    "es": "- errors.save: No se pudo guardar el archivo\n"
    "- errors.network: Sin conexión a internet\n- errors.retry: Inténtalo de nuevo más tarde\n",
    "ja": "- settings.title: 設定\n- settings.save: 変更を保存\n"
    "- settings.delete: アカウントを完全に削除する\n",
    "fr": "- units.km: km\n- units.items: éléments\n- dialog.ok: OK\n- dialog.cancel: Annuler\n",
}


@pytest.mark.parametrize("lang", sorted(CATALOGS))
def test_a_message_catalog_still_passes(lang: str) -> None:
    verdict = check_text("# i18n keys\n\nNew keys for the translations:\n\n" + CATALOGS[lang])
    assert verdict.english, verdict


ES_STRINGS = {
    "errors.save": "No se pudo guardar el archivo",
    "errors.network": "Sin conexión a internet",
    "errors.retry_later": "Inténtalo de nuevo más tarde",
}
ITEMS = {
    "backticked keys": "- `{key}`: {value}\n",
    "quoted strings": '- {key}: "{value}"\n',
    "both": '- `{key}`: "{value}"\n',
    "JSON": '- "{key}": "{value}"\n',
    "keys of three parts": "- checkout.{key}: {value}\n",
}


@pytest.mark.parametrize("item", sorted(ITEMS))
def test_a_message_catalog_written_as_code_and_quotes_passes(item: str) -> None:
    """A key in a code span was stripped as code (`: Sin conexión a internet`), one of three
    parts as a path, `_` as markup (`errors.retry later`), and a string in quotation marks
    began with no capital: each list was no catalog and was refused as Spanish."""
    lines = "".join(ITEMS[item].format(key=k, value=v) for k, v in ES_STRINGS.items())
    verdict = check_text("# i18n keys\n\nNew keys for es.json:\n\n" + lines)
    assert verdict.english, verdict


@pytest.mark.parametrize("most", [8, 20, 40])
def test_foreign_notes_cut_behind_backticked_keys_are_refused(most: int) -> None:
    """Read without its keys, a note cut behind `` `settings.key3` `` was a list of short
    items: 32, 10 and 8 of 103 passed; 5, 2 and 5 now, as behind bare keys."""
    item = "- `settings.key{n}`: {value}\n"
    passed = foreign_passing(lambda text: SENTENCE + catalog(runs(text, most), item))
    assert len(passed) <= 7, passed


def capitalised(values: list[str]) -> list[str]:
    return [value[:1].upper() + value[1:] for value in values]


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_foreign_notes_cut_behind_numbered_keys_and_capitalised_are_refused(size: int) -> None:
    """Each piece hand-capitalised, as a catalog's strings begin: 11, 18, 16, 18, 20 and 19 of
    103 passed; 9, 9, 4, 8, 8 and 11 now (the pieces alone, no keys: 9, 9, 5, 9, 8 and 6).
    Numbered keys (`settings.key1`, `settings.key2`) are slots, not names of strings."""
    passed = foreign_passing(lambda text: SENTENCE + catalog(capitalised(pieces(text, size))))
    assert len(passed) <= 11, passed


@pytest.mark.parametrize("size", [1, 2, 3])
def test_foreign_words_behind_named_keys_are_refused(size: int) -> None:
    """Behind distinct keys naming strings (`web.cart.empty`), a catalog's strings must still
    begin with a capital and be no prose cut in pieces: 5, 6 and 5 of 103 pass."""
    passed = foreign_passing(
        lambda text: SENTENCE + catalog(pieces(text, size)[: len(KEYS)], "- {key}: {value}\n")
    )
    assert len(passed) <= 7, passed


HTTP_ERRORS = {
    "errors.http401": "Anmeldung erforderlich",
    "errors.http403": "Zugriff verweigert",
    "errors.http404": "Seite nicht gefunden",
    "errors.http500": "Interner Serverfehler",
}


def test_a_catalog_keyed_by_status_codes_is_one() -> None:
    """Its keys, digits left out, are one (`errors.http`), so they were read as numbered slots
    and the German strings voted: refused as German (53%), passed before; status codes are
    names of strings, not slots counted off (`settings.key1`, `settings.key2`)."""
    head = "# Error strings\n\nThe German strings of the error pages, as translators sent them.\n\n"
    verdict = check_text(head + "".join(f"- {k}: {v}\n" for k, v in HTTP_ERRORS.items()))
    assert verdict.english, verdict
    counted = "".join(f"- errors.e{n}: {v}\n" for n, v in enumerate(HTTP_ERRORS.values()))
    assert not check_text(head + counted).english
