"""An English phrase, then its translation (`- Where is the station?: Wo ist der Bahnhof?`):
read by its values alone, as a list of pairs is, a phrase list was refused as the language of
its translations (German 74%, Portuguese: its short items pooled). It is read as two
paragraphs now, its phrases and its translations, each weighing its letters."""

from __future__ import annotations

import pytest

from memidx.notes.english import check_text
from tests.language_notes import SENTENCE, foreign_passing, pieces, texts

HEAD = "# Phrases for the trip\n\nPhrases I keep needing when I travel.\n\n"
PHRASES = {
    "de": {
        "Good morning": "Guten Morgen",
        "Thank you very much": "Vielen Dank",
        "Where is the station?": "Wo ist der Bahnhof?",
        "How much does it cost?": "Wie viel kostet das?",
        "I do not understand": "Ich verstehe nicht",
        "The bill, please": "Die Rechnung, bitte",
    },
    "pt": {
        "Good morning": "Bom dia",
        "Thank you": "Obrigado",
        "Where is the bathroom": "Onde fica a casa de banho",
        "I would like a coffee": "Queria um café",
        "How much is it": "Quanto custa",
        "The bill please": "A conta por favor",
        "I do not speak Portuguese": "Não falo português",
    },
    "fr": {
        "Good evening": "Bonsoir",
        "Excuse me": "Excusez-moi",
        "Where is the museum?": "Où est le musée ?",
        "I am looking for a pharmacy": "Je cherche une pharmacie",
        "Can you help me?": "Pouvez-vous m'aider ?",
        "A table for two, please": "Une table pour deux, s'il vous plaît",
    },
}


@pytest.mark.parametrize("lang", sorted(PHRASES))
def test_an_english_phrase_list_passes(lang: str) -> None:
    lines = "".join(f"- {phrase}: {value}\n" for phrase, value in PHRASES[lang].items())
    verdict = check_text(HEAD + lines)
    assert verdict.english, verdict


def test_translations_outweighing_their_phrases_are_refused() -> None:
    """Each side weighs its letters: German sentences behind short English ones fail."""
    lines = (
        "- I tried it: Ich habe den Build gestern komplett neu gestartet\n"
        "- It is slow: Der Server antwortet seit dem Update sehr langsam\n"
        "- We fixed it: Wir haben den Cache geleert, danach lief alles\n"
    )
    assert not check_text(SENTENCE + lines).english


def test_slots_before_translations_are_no_phrases() -> None:
    """Phrases sharing a word but English function words (`How do I say cat`, `How do I
    say dog`) are slots: the values read alone, as German."""
    values = ["die Katze", "der Hund", "das Haus", "der Baum", "die Straße", "das Auto"]
    nouns = ["cat", "dog", "house", "tree", "street", "car"]
    lines = "".join(f"- How do I say {n}: {v}\n" for n, v in zip(nouns, values, strict=True))
    assert not check_text(SENTENCE + lines).english


@pytest.mark.parametrize("size", [1, 2])
def test_foreign_notes_behind_english_labels_of_a_few_words_are_still_refused(size: int) -> None:
    """Labels of one to three words are no phrases (no English function word in most): the
    labeled set's foreign notes in pieces behind them pass as before (3 to 9 of 103)."""
    words = [w for text in texts("en") for w in pieces(text, 1) if w.isascii() and len(w) > 3]
    passed = foreign_passing(
        lambda text: (
            SENTENCE
            + "".join(
                f"- {' '.join(words[(n * 3 + k) % len(words)] for k in range(3)).title()}: {p}\n"
                for n, p in enumerate(pieces(text, size))
            )
        )
    )
    assert len(passed) <= 9, passed
