"""Chinese, Japanese and Korean notes cut in pieces of a few characters behind distinct English
labels (`- Build server: 調度器は負荷`) were read as glossaries, by their labels: of the labeled
set's 15 such notes, 10, 15, 13 and 6 passed in pieces of 4, 6, 8 and 10 (6, 5, 5, 3 now).
A piece cut from prose begins with what binds to the word before it (`を`, `ー`, `的`, `을`) or
ends in a particle, as a term does not."""

from __future__ import annotations

import re

import pytest

from memidx.notes.english import check_text
from memidx.notes.prose import prose_units
from tests.language_notes import SENTENCE, texts

_VERBS = ("Build", "Deploy", "Test", "Review", "Merge", "Release", "Publish", "Install")
_NOUNS = ("server", "client", "cache", "queue", "worker", "schema", "bundle", "module")
LABELS = [f"{verb} {noun}" for noun in _NOUNS for verb in _VERBS]  # 64, distinct words
_CASELESS = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")


def _caseless_notes() -> list[str]:
    return [text for text in texts("non-en") if len(_CASELESS.findall(text)) > 100]


def _cut(text: str, size: int) -> list[str]:
    letters = "".join(ch for ch in "".join(prose_units(text)) if ch.isalpha() and not ch.isascii())
    return [letters[at : at + size] for at in range(0, len(letters), size)]


@pytest.mark.parametrize(("size", "most"), [(4, 6), (6, 5), (8, 5), (10, 3)])
def test_caseless_prose_cut_behind_labels_is_refused(size: int, most: int) -> None:
    notes = _caseless_notes()
    passed = [
        text[:30]
        for text in notes
        if check_text(
            SENTENCE
            + "".join(
                f"- {label}: {piece}\n"
                for label, piece in zip(LABELS, _cut(text, size), strict=False)
            )
        ).english
    ]
    assert len(notes) == 15 and len(passed) <= most, passed


@pytest.mark.parametrize(
    "items",
    [
        ["Confirm: はい", "Dismiss: いいえ", "Save file: 保存", "Undo change: 元に戻す"],
        ["Open: 打开", "Close: 关闭", "Filter: 过滤", "Purpose: 目的", "Print: 打印", "Help: 帮助"],
        ["Name: 이름", "Login: 로그인", "Help: 도움말", "Error: 에러", "Save: 저장", "Move: 이동"],
    ],
)
def test_caseless_ui_glossaries_pass(items: list[str]) -> None:
    verdict = check_text("# UI strings\n\n" + "".join(f"- {item}\n" for item in items))
    assert verdict.english, verdict


@pytest.mark.parametrize(
    "text",
    [
        "# Japanese for the kiosk\n\nThe kiosk asks the visitor to confirm in Japanese.\n\n"
        "- Yes: はい\n- No: いいえ\n- OK: 了解\n",
        "# Kiosk words\n\nThe buttons of the kiosk.\n\n"
        "- Yes: はい\n- No: いいえ\n- Back: 戻る\n- Next: 次へ\n",
    ],
)
def test_a_few_short_words_beside_short_labels_pass(text: str) -> None:
    """No more letters in the labels than characters in the terms: the signs counted with the
    terms (`: はい` is 4 characters beside `Yes`) refused both as Japanese."""
    verdict = check_text(text)
    assert verdict.english, verdict


SHORT_LABELS = [
    *("Yes", "No", "OK", "Back", "Next", "Save", "Open", "Exit", "Help", "File"),
    *("Edit", "View", "Quit", "Undo", "Redo", "Copy", "Cut", "Find", "Send", "Stop"),
]


@pytest.mark.parametrize(("size", "most"), [(2, 1), (3, 0)])
def test_caseless_prose_cut_behind_short_labels_is_refused(size: int, most: int) -> None:
    """A long list of pieces of 2 or 3 characters behind labels of 2 to 4 letters: its signs
    still count with its terms, and 1 and 0 of the 15 notes pass (more than a few pairs)."""
    notes = _caseless_notes()
    passed = [
        text[:30]
        for text in notes
        if check_text(
            SENTENCE
            + "".join(
                f"- {label}: {piece}\n"
                for label, piece in zip(SHORT_LABELS, _cut(text, size), strict=False)
            )
        ).english
    ]
    assert len(notes) == 15 and len(passed) <= most, passed
