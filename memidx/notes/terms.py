"""Terms in a script without capitals (`保存`, `ファイルを開く`) and the pieces cut from prose
that are not terms: what a glossary (memidx.notes.glossary) and a message catalog
(memidx.notes.catalog) list beside their labels. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from memidx.notes.loanwords import LETTER_WORD

# what binds to the word before it in Japanese, Chinese and Korean: a caseless term does not
# begin with one; and the particles a term does not end in
_BOUND_END = frozenset("をはがのにで的了吗呢을를은는의에")
_BOUND_START = frozenset("をがにでーっゃゅょんぁぃぅぇぉッャュョァィゥェォ的了们吗呢을를은는의")
MIN_CUT_PIECES, MIN_CUT_SHARE = 2, 0.15
MAX_TERM_CHARS = 12  # a term in a script without capitals, one word: "ファイルを開く"
MAX_LONGER_SHARE = 4  # one term in four may be longer, beside a label of as many letters


def short_term(label: str, value: str) -> bool:
    """Whether a term in a caseless script is MAX_TERM_CHARS characters or fewer, or no more
    characters than its label has letters (`Delete account: アカウントを完全に削除する`): one
    longer term refused a Japanese UI glossary, its one item voting alone."""
    return len(value) <= max(MAX_TERM_CHARS, len("".join(LETTER_WORD.findall(label))))


def cut_pieces(terms: Sequence[str]) -> bool:
    """Whether terms in a caseless script are pieces cut from prose: MIN_CUT_PIECES of them,
    and MIN_CUT_SHARE or more, begin with a mark or a particle that binds to the word before
    (`を`, `ー`, `っ`, `的`, `을`) or end in a particle (`の`, `了`), as a term never does."""
    cut = sum(term[0] in _BOUND_START or term[-1] in _BOUND_END for term in terms)
    return cut >= MIN_CUT_PIECES and cut >= MIN_CUT_SHARE * len(terms)


def cased(text: str) -> bool:
    """Whether every letter of text is of a script with capitals, whose function words
    memidx.notes.titlecase lists (a caseless script's words are not cut by spaces)."""
    return all(ch.isupper() or ch.islower() for ch in text if ch.isalpha())
