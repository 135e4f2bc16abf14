# Letters that look like Latin ones are the point of this module.
# ruff: noqa: RUF001, RUF002
"""Letters of other scripts that look like Latin ones (Unicode's confusables, UTS #39): German
spelled with a Cyrillic а, е, о or a Greek ο, ν reads to the language model as unknown words,
and as English or unsure, so the English check reads such words in the Latin letters they
imitate. A word mixing Latin letters with look-alikes is folded; a paragraph whose Cyrillic,
Greek or Armenian letters are nearly all look-alikes is Latin in disguise and folded whole;
Russian or Greek prose, whose letters are mostly not look-alikes, is left as it is. Pure."""

from __future__ import annotations

import re

# the look-alike and the Latin letter it imitates (confusables.txt, single Latin prototypes)
_LOOKALIKES = {
    # Cyrillic
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
    "ѕ": "s", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ӓ": "ä", "ӧ": "ö", "ӱ": "ü",
    "ё": "ë", "ї": "ï", "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J",
    "К": "K", "М": "M", "О": "O", "Р": "P", "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "Ү": "Y",
    "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I", "Ԍ": "G", "Ӓ": "Ä", "Ӧ": "Ö", "Ӱ": "Ü", "Ё": "Ë", "Ї": "Ï",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J", "ο": "o", "ν": "v",
    "α": "a", "ι": "i", "ρ": "p", "υ": "u", "γ": "y", "ϲ": "c", "σ": "o", "ϳ": "j", "ϊ": "ï",
    "ό": "ó", "ά": "á", "ί": "í", "Ό": "Ó", "Ά": "Á", "Ί": "Í",
    # Armenian
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g", "զ": "q",
}  # fmt: skip
_FOLD = str.maketrans(_LOOKALIKES)
# Latin small capitals (ᴅɪᴇ): Latin already, but words the model does not know; NFKC keeps them
_SMALL_CAPITALS = str.maketrans(
    "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ",
    "abcdefghijklmnoprstuvwyz",  # no small capital q or x
)
_SMALL_CAPITAL = re.compile("[\u1d00-\u1d22\u0260-\u029f\ua730-\ua731]")
_OTHER = re.compile("[\u0370-\u03ff\u0400-\u052f\u0531-\u058f]")  # Greek, Cyrillic, Armenian
_LATIN = re.compile("[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")
_WORD = re.compile(r"[^\W\d_]+")
MAX_OTHER_SHARE = 0.1  # of those scripts' letters, not look-alikes: more, and it is their prose


def fold_lookalikes(text: str) -> str:
    """`text` with look-alike letters in the Latin ones they imitate, where they disguise
    Latin words: in a word with Latin letters, or everywhere when nearly all of the text's
    Cyrillic, Greek and Armenian letters are look-alikes."""
    if _SMALL_CAPITAL.search(text):
        text = text.translate(_SMALL_CAPITALS)
    others = [ch for ch in _OTHER.findall(text) if ch.isalpha()]
    if not others:
        return text
    if sum(ch not in _LOOKALIKES for ch in others) <= MAX_OTHER_SHARE * len(others):
        return text.translate(_FOLD)
    return _WORD.sub(lambda word: _fold_mixed(word[0]), text)


def _fold_mixed(word: str) -> str:
    return word.translate(_FOLD) if _LATIN.search(word) and _OTHER.search(word) else word
