"""The words the language model reads: without signs that hide a word's letters from it."""

from __future__ import annotations

import sys
import unicodedata

from memidx.notes.quotation import words_for_the_model

# Unicode's Default_Ignorable_Code_Point that are not format signs (Cf): shown as nothing
DEFAULT_IGNORABLE = [0x34F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F]
DEFAULT_IGNORABLE += [0x3164, 0xFFA0, *range(0xFE00, 0xFE10), *range(0xFFF0, 0xFFF9)]
DEFAULT_IGNORABLE += [*range(0x2065, 0x2066), *range(0xE0000, 0xE1000)]


def test_every_format_or_ignorable_sign_inside_a_word_is_dropped() -> None:
    """The Arabic letter mark (U+061C) after each letter let 49 of the 103 labeled foreign
    notes through, Kaithi's number sign 47: every sign Unicode calls a format sign (Cf) or
    default-ignorable is dropped, not only the ones tried."""
    format_signs = [c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]

    kept = [
        f"U+{code:04X}"
        for code in [*format_signs, *DEFAULT_IGNORABLE]
        if words_for_the_model(f"Stra{chr(code)}\u00dfe") != "Stra\u00dfe"
    ]

    assert len(format_signs) > 150 and kept == [], kept
