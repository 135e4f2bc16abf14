# Cyrillic words, not look-alikes of Latin letters, are in these notes.
# ruff: noqa: RUF001, RUF002
"""Foreign notes in Title Case pieces that passed after 69655f1 (names and glossaries) and were
refused before it, or passed both: a Russian note cut in threes (a name of three words in
two-byte letters never voted), Danish pieces beside English labels (read at 0.77, under the
names' bar of 0.8), and Catalan or Galician notes (no function words of their own: never
prose in Title Case)."""

from __future__ import annotations

import re

import pytest

from memidx.notes.english import check_text

SENTENCE = "Here are the notes from the meeting last week.\n\n"
WORD = re.compile(r"[^\W\d_]+")


def _items(items: list[str], sentence: str = SENTENCE) -> str:
    return sentence + "".join(f"- {item}\n" for item in items)


RUSSIAN_IN_THREES = [
    [
        "Перед Пушем Запускайте",
        "Интеграционные Тесты Требуют",
        "Docker И Идут",
        "Минут Двенадцать",
    ],
    ["Ничего Не Удаляйте", "В Без Согласования", "Эти Фикстуры Используют", "Аналитики"],
]


@pytest.mark.parametrize("items", RUSSIAN_IN_THREES)
def test_a_russian_note_cut_in_threes_is_refused(items: list[str]) -> None:
    """Three words under 30 letters are a name (`Александр Сергеевич Пушкин`), unless the
    pieces, read together, hold the language's function words (`И`, `Не`, `В`)."""
    verdict = check_text(_items(items))
    assert not verdict.english and verdict.language == "ru", verdict


def test_names_of_russians_in_threes_still_pass() -> None:
    names = ["Александр Сергеевич Пушкин", "Лев Николаевич Толстой", "Антон Павлович Чехов"]
    names += ["Фёдор Михайлович Достоевский", "Иван Сергеевич Тургенев"]
    assert check_text(_items(names)).english


DANISH_BESIDE_LABELS = [
    "Build: Udrulning Til Staging",
    "Deploy: Når Der Merges",
    "Cache: Til Udrulles Der",
    "Index: Automatisk Til Staging",
    "Search: Hvis Du Vil",
    "Merge: Have En Feature-branch",
    "Commit: På Staging Skal",
    "Branch: Du Sætte Labelen",
    "Review: På Din Pull",
    "Release: Request Botten Udruller",
    "Tests: Så Branchen Og",
    "Logs: Skriver URL'en I",
    "Config: En Kommentar Der",
    "Backup: Er Kun Ét",
    "Restore: Staging-miljø Skriv I",
    "Monitor: Teamkanalen At Du",
    "Alerts: Bruger Det Og",
    "Docs: Fjern Labelen Igen",
    "Schema: Når Du Er",
    "Queue: Færdig Databasemigreringer På",
    "Worker: Staging Bliver Ikke",
    "Server: Rullet Tilbage",
]


def test_danish_pieces_beside_english_labels_are_no_glossary() -> None:
    """The pieces read as Danish at 0.77 only (English words among them): their function
    words (`Til`, `Der`, `Du`, `Og`) still say they are prose, not names."""
    verdict = check_text(_items(DANISH_BESIDE_LABELS, sentence=""))
    assert not verdict.english, verdict


WITHOUT_A_LIST = {
    "ca": "Abans de fer push a main cal executar tots els tests en local. Els tests "
    "d'integració necessiten Docker i triguen uns dotze minuts. Si fallen per culpa de la "
    "xarxa, torneu a executar-los abans de demanar ajuda al canal. Les migracions sempre han "
    "de poder desfer-se, i les escrivim perquè es puguin executar dues vegades.",
    "gl": "Antes de facer push á rama principal, executa todas as probas en local. As probas "
    "de integración precisan Docker e levan uns doce minutos. Se fallan por culpa da rede, "
    "vólveas executar antes de pedir axuda na canle do equipo. As migracións sempre se teñen "
    "que poder desfacer e escribímolas para que se poidan executar dúas veces.",
}


@pytest.mark.parametrize("size", [2, 3, 4])
@pytest.mark.parametrize("lang", sorted(WITHOUT_A_LIST))
def test_a_language_without_its_own_function_words_in_title_case_is_refused(
    lang: str, size: int
) -> None:
    words = WORD.findall(WITHOUT_A_LIST[lang])
    items = [
        " ".join(word[:1].upper() + word[1:] for word in words[i : i + size])
        for i in range(0, len(words), size)
    ]
    verdict = check_text(_items(items))
    assert not verdict.english and verdict.language == lang, verdict


def test_names_with_initials_beside_their_roles_pass() -> None:
    """`О. С. Бартунов`: an initial is no preposition (`с`, `о`, `а`, `в` are Russian ones)."""
    items = ["Postgres: О. С. Бартунов", "Full text search: Ф. В. Сигаев"]
    items += ["Indexes: А. Н. Коротков", "Planner: Н. А. Глухов", "Replication: А. В. Лесовский"]
    sentence = "We thank the people who maintain the database parts we depend on.\n\n"
    verdict = check_text(_items(items, sentence=sentence))
    assert verdict.english, verdict
