# Greek and Cyrillic words in English prose are the point of some of these tests.
# ruff: noqa: RUF001
"""English with loanwords passes the English check; prose in a language with accents does not
(the real lite model, offline)."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from memidx.notes.language_model import detect_language
from memidx.notes.loanwords import english_beside_loanwords

ENGLISH_WITH_LOANWORDS = [
    "Café au lait: the naïve façade résumé is fine in English.",
    "Her résumé lists a rôle at a Zürich startup and a stint in São Paulo.",
    "The café's crème brûlée and the résumé of the maître d' are à la carte.",
    "# Café au lait\n\nThe naïve façade résumé is fine in English.\n",
]
NOT_ENGLISH = [
    "Le cache de build est corrompu après un rebase, il faut le supprimer à la main.",
    "Testele Playwright pică doar în CI și nu local, din cauza timpului.",
    "Testes do Playwright instáveis só no CI",
    "Der Build schlägt fehl, weil der Speicher auf dem Runner voll ist; räum ihn auf.",
    "El caché de compilación está dañado después de un rebase; bórralo a mano.",
    "Lệnh chạy toàn bộ và mất rất nhiều thời gian. Để chạy một test thì sao?",
    "Włącz podwójny zapis flagą, zanim przełączysz odczyty na nową bazę danych.",
]
# an English sentence beside one in another language: the paragraph's accented words are under
# 40% of its words, and without them the English sentence carries the rest
ENGLISH_FIRST = (
    "The build fails when the pip cache is full, so clear the folder and run the job again."
)
MIXED = [
    "O servidor não responde depois de atualizar o kernel, reinicie o serviço do docker.",
    "O build falha quando o cache do npm está cheio, é preciso apagar a pasta e rodar o job.",
    "Máy chủ không phản hồi sau khi cập nhật kernel, hãy khởi động lại dịch vụ docker.",
    "Token vyprší po hodině, takže skript ho musí obnovit před každým voláním API.",
    "Þjónninn svarar ekki eftir uppfærslu á kjarnanum, endurræstu docker þjónustuna.",
]


@pytest.mark.parametrize("text", ENGLISH_WITH_LOANWORDS)
def test_english_with_loanwords_is_english(text: str) -> None:
    verdict = check_text(text)
    assert verdict.english, verdict.reason


@pytest.mark.parametrize("text", NOT_ENGLISH)
def test_prose_in_a_language_with_accents_is_still_refused(text: str) -> None:
    verdict = check_text(text)
    assert not verdict.english, verdict.reason


@pytest.mark.parametrize("sentence", MIXED)
def test_a_sentence_in_another_language_beside_an_english_one_is_refused(sentence: str) -> None:
    verdict = check_text(f"{ENGLISH_FIRST} {sentence}")
    assert not verdict.english, verdict.reason


@pytest.mark.parametrize(
    "unit",
    [
        "Café au lait résumé naïve façade soupçon",  # loanwords only: nothing left to read
        "Кафе au lait: the naïve façade résumé is fine in English.",  # another script
        "The build failed again on the runner tonight, as it did yesterday.",  # no accents
    ],
)
def test_the_second_look_needs_a_minority_of_loanwords_in_latin_prose(unit: str) -> None:
    assert not english_beside_loanwords(unit, detect_language)


def test_short_items_in_another_language_pooled_with_english_ones_are_refused() -> None:
    note = (
        "# Steps\n\n- Check the logs first\n- Khởi động lại dịch vụ\n- Update the ticket now\n"
        "- Kiểm tra nhật ký\n- Close the PR after\n"
    )
    verdict = check_text(note)
    assert not verdict.english, verdict.reason


# an error message quoted in an English paragraph: someone else's words, as a block quote's
QUOTED_ERRORS = [
    '"Le fichier spécifié est introuvable, vérifiez le chemin d\'accès et réessayez."',
    "\u201cNão foi possível conectar ao servidor, verifique a sua conexão e tente novamente.\u201d",
    "\u201eNie można odnaleźć określonego pliku, sprawdź ścieżkę i spróbuj ponownie.\u201c",
    "\u00abNão foi possível conectar ao servidor, verifique a sua conexão e tente novamente.\u00bb",
]


@pytest.mark.parametrize("quoted", QUOTED_ERRORS)
def test_a_sentence_in_quotation_marks_in_an_english_paragraph_passes(quoted: str) -> None:
    """Passed before each sentence was read on its own, which took the quoted error for a
    sentence of the note's own prose."""
    note = (
        "# Build fails on the localized runner\n\nOn the Windows runner with a localized image,"
        f" the nightly build fails at the packaging step. The log says {quoted} Closing the"
        " Explorer window that has the output folder open fixes it; the retry then succeeds.\n"
    )
    verdict = check_text(note)
    assert verdict.english, verdict.reason


@pytest.mark.parametrize(
    "names",
    [
        "Reviewed by Łukasz Wróbel, Paweł Żółć and Bartłomiej Ślęzak.",
        "Written by Jiří Dvořák, Tomáš Černý and Zdeněk Šťastný.",
    ],
)
def test_a_sentence_of_accented_names_in_an_english_paragraph_passes(names: str) -> None:
    """Passed before each sentence was read on its own: most of its words are accented names,
    which read as their language, not the sentence's."""
    note = f"# Socket timeout\n\n{names} The fix adds a timeout to the socket read in the worker.\n"
    verdict = check_text(note)
    assert verdict.english, verdict.reason


def test_english_math_with_variables_is_english() -> None:
    """A variable y read as the Spanish "and": this paragraph was refused (es 0.35)."""
    paragraph = (
        "We compute x - y and then y - z, so if x > y and y > z the result is positive. Let d ="
        " x - z; then d = (x - y) + (y - z)."
    )

    verdict = check_text(f"# Distance\n\n{paragraph}\n")

    assert verdict.english, verdict.reason


@pytest.mark.parametrize(
    "paragraph",
    [
        "El servidor se cayó y la base de datos quedó bloqueada, así que reinicie el servicio y"
        " revise los registros o llame a soporte.",
        "Server spadl v noci a databáze je zamčená, restartujte službu a zkontrolujte logy s"
        " pomocí správce k tomu určeného.",
        "Il server è caduto e il database è bloccato, riavvia il servizio e controlla i log o"
        " chiama il supporto a mezzanotte.",
    ],
)
def test_foreign_prose_without_its_one_letter_words_stays_foreign(paragraph: str) -> None:
    """Spanish y, Czech v and s, Italian e and i are words of their language: without them
    the rest still reads as that language."""
    assert not check_text(f"# Notiz\n\n{paragraph}\n").english


@pytest.mark.parametrize(
    "paragraph",
    [
        "On the Russian build the buttons say Сохранить, Отмена, Удалить and Настройки, which fit"
        " in the toolbar without truncation.",
        "The Greek menu says Αρχείο, Επεξεργασία and Προβολή, and the about box shows Σχετικά; all"
        " of them fit.",
    ],
)
def test_english_naming_a_few_greek_or_cyrillic_words_is_english(paragraph: str) -> None:
    """UI strings named bare in an English sentence were refused (ru, el): four words of
    twenty, fewer letters than the English around them."""
    verdict = check_text(f"# Localization\n\n{paragraph}\n")

    assert verdict.english, verdict.reason


@pytest.mark.parametrize(
    "paragraph",
    [
        "The deploy job pulls the image and restarts the web workers one at a time in every"
        " region of the cloud. Сервер упал ночью, перезапустите его и проверьте логи.",
        "Deploy в prod через GitHub Actions pipeline, rollback через Argo CD если health check.",
    ],
)
def test_a_russian_sentence_or_russian_with_english_terms_stays_russian(paragraph: str) -> None:
    """A Russian sentence pasted bare beside an English one, or Russian prose of English terms,
    is not English naming a few words."""
    assert not check_text(f"# Deploy\n\n{paragraph}\n").english
