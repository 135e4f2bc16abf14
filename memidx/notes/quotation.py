# Quotation marks of every kind are the point of this module.
# ruff: noqa: RUF003
"""Words in quotation marks: someone else's (an error message, a proverb), as a block quote's
are. A note the English check refuses is read again without them: it passes when its own words
that read as English hold at least half of all its letters, quotations included. Every letter
outside quotation marks is weighed: a paragraph's rest votes on its own without the loanword
look (memidx.notes.loanwords), the rests too short to vote read together. So an English note
quoting a German error passes, while a note mostly in quotation marks, a foreign one with a few
words quoted, or English beside foreign text that a quotation was to outweigh, is refused as
before: quoting only ever lets a note through whose own prose is English. And the words the
language model reads: without quotation marks or other signs worn to blur them. Pure."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from memidx.notes.lookalikes import fold_lookalikes
from memidx.notes.prose import MAX_PIECE_CHARS, letter_bytes, pieces

Detect = Callable[[str], tuple[str, float]]  # (language code, score) of a text's top guess

# A single quote opens only after a non-word character and before a letter, and closes only
# where no letter or digit follows: an apostrophe inside a word (don't, l'erreur, it’s), after
# one (the users' keys) or before a digit ('90s) neither opens nor closes a quotation.
_OPENING = re.compile(
    r"""(?<![^\W_])['\u2018](?=[^\W\d_])|["\u201c\u201e\u00ab\u00bb\u201a"""
    "\u300c\u300e\u301d\ufe41\ufe43\uff02]"
)
_CLOSING = {  # what closes each opening mark; a line's end closes nothing
    '"': re.compile('\n|"'),  # "straight"
    "\u201c": re.compile("\n|\u201d"),  # “English”
    "\u201e": re.compile("\n|[\u201c\u201d]"),  # „German“, „Polish”
    "\u00ab": re.compile("\n|\u00bb"),  # «French»
    "\u00bb": re.compile("\n|[\u00ab\u00bb]"),  # »German«, »Swedish»
    "\u201a": re.compile("\n|[\u2018\u2019]"),  # ‚German‘
    "\u2018": re.compile("\n|\u2019(?![^\\W_])"),  # ‘English’
    "'": re.compile("\n|'(?![^\\W_])"),  # 'straight'
    "\u300c": re.compile("\n|\u300d"),  # 「Japanese, Chinese」
    "\u300e": re.compile("\n|\u300f"),  # 『a quote inside one』
    "\u301d": re.compile("\n|[\u301e\u301f]"),  # 〝double prime〞
    "\ufe41": re.compile("\n|\ufe42"),  # ﹁vertical﹂
    "\ufe43": re.compile("\n|\ufe44"),  # ﹃vertical﹄
    "\uff02": re.compile("\n|\uff02"),  # ＂full-width＂
}
MIN_OWN_SHARE = 0.5  # of all letters, quotations included: less, and the quotes are the note

# Quotation marks hugging a word blur the model's guess (each word of a German note in "..."
# read as English): it reads words without them, an apostrophe inside a word kept. So do other
# signs around whole words once more than MAX_WRAPPED_SHARE of the words wear them (.each.).
_MARKS = re.compile(
    "(?<!\\w)[\"'\u2018-\u201f\xab\xbb\u300c-\u300f\u301d-\u301f]+"
    "|[\"'\u2018-\u201f\xab\xbb\u300c-\u300f\u301d-\u301f]+(?!\\w)"
)
_MARK = re.compile("[\"'\u2018-\u201f\xab\xbb\u300c-\u300f\u301d-\u301f]")
_WRAPPED = re.compile(r"(?<!\S)[^\w\s]+(\w+)[^\w\s]+(?!\S)")
MAX_WRAPPED_SHARE = 0.25
# letters spaced out (D i e, D-i-e, a braille blank or U+FFFC after each) are words the model
# does not know: 23 to 68 of 103 foreign notes passed. Once most runs of letters are one letter
# long, it reads them without the one sign between two such letters or after the last one;
# never after a longer word ("Let u and v be", English math, read "Letuandvbe" as Dutch)
_RUN = re.compile(r"[^\W\d_]+")
_SINGLE = re.compile(r"(?<![^\W\d_])[^\W\d_](?![^\W\d_])")
# A space between two lone letters goes too when no other sign does that work (D i e, or D_i_e
# whose markup is a space by then); beside hyphens (D-i-e G-r-ö-ß-e) a space ends a word, and
# taking it out too ("DieGröße") let 5 of 103 foreign notes through (1 now)
_AFTER_ALONE = r"(?<=(?<![^\W\d_])[^\W\d_])"  # after a letter standing alone
_BEFORE_ALONE = r"(?=[^\W\d_](?![^\W\d_]))"
_SPACED = re.compile(rf"{_AFTER_ALONE}(?:(?:[^\w\n]|_){_BEFORE_ALONE}|(?:[^\w\s]|_)(?=\s|$))")
_SIGNED = re.compile(rf"{_AFTER_ALONE}(?:[^\w\s]|_)(?:{_BEFORE_ALONE}|(?=\s|$))")
MIN_SPACED_RUNS, MIN_SPACED_SHARE = 8, 0.6
# Spaced out with one space between words too (`d i e s e r`, `*d*i*e*` whose markup is a space
# by then), the words run together ("dieserbuild...") and the model reads no language surely: 5
# of 103 foreign notes passed. Such text is read as no language's: SPACED_OUT, surely
SPACED_OUT = "spaced-out"
# letters per run, on average: at most 8.4 in any paragraph of the labeled set (Turkish), 10.8 in
# a Vietnamese one spaced out so ("Buildbiloitren CI tuhomqua, chacdocachenpm")
MAX_MEAN_RUN = 9
# invisible signs inside words (zero-width space and joiner, direction marks, soft hyphen) cut
# each word in pieces the model does not know: 43 of 103 foreign notes passed with ZWJ in words;
# NFKC: words in full-width (ｄｉｅ) or mathematical (𝐝𝐢𝐞) letters are the words the model knows;
# so do the other default-ignorable signs (grapheme joiner: 53 of 103, tags: 38, Hangul filler:
# 38, the Arabic letter mark: 49, variation selectors: 8) and every format sign (Cf, Unicode
# 14: Kaithi's number sign let 47 through). Combining marks on many letters: read_words.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+"
)
_NON_ASCII = re.compile("[^\x00-\x7f]")
MAX_MARKED_SHARE = 0.1  # of the letters: more carry a combining mark, and the marks may be noise
# The model reads at most twice the characters it is given, and 2 pieces' worth at a time
# (memidx.notes.prose.pieces): NFKC makes one sign up to 18 (U+FDFA; a 1 MB note of it took
# 7.85 s), others up to 6; normalized a slice at a time
MAX_READ, _SLICE = 2 * MAX_PIECE_CHARS, 512


def words_for_the_model(text: str) -> str:
    """`text` as the language model should read it: words without the signs around them or
    inside them, in their usual letters (NFKC; Latin look-alikes: memidx.notes.lookalikes)."""
    return _read_as(text)[0]


def _read_as(text: str) -> tuple[str, bool]:
    """words_for_the_model(text), and whether the spaces between its letters were taken out."""
    if not text.isascii():  # most units of an English note: nothing to normalize
        text = fold_lookalikes(_normalized(_INVISIBLE.sub("", text))[: 2 * len(text)])
    text = text[:MAX_READ]
    text = _MARKS.sub(" ", text) if _MARK.search(text) else text  # a search costs a tenth
    runs, despaced = len(_RUN.findall(text)), False
    if runs >= MIN_SPACED_RUNS and (alone := len(_SINGLE.findall(text))) > MIN_SPACED_SHARE * runs:
        signed, count = _SIGNED.subn("", text)
        text, despaced = (signed, False) if 2 * count >= alone else (_SPACED.sub("", text), True)
    if len(_WRAPPED.findall(text)) > MAX_WRAPPED_SHARE * len(text.split()):
        text = _WRAPPED.sub(r" \1 ", text)
    return text, despaced


def _run_together(text: str) -> bool:
    """Whether the runs of letters of text read without the spaces between them are longer
    than words are (MAX_MEAN_RUN): its letters were spaced out with no wider gap between words."""
    runs = _RUN.findall(text)
    return sum(map(len, runs)) > MAX_MEAN_RUN * len(runs)


def _normalized(text: str) -> str:
    """NFKC of `text`, slice by slice up to MAX_READ characters (the rest is not read)."""
    if len(text) <= _SLICE:
        return unicodedata.normalize("NFKC", text)
    done: list[str] = []
    size = at = 0
    while at < len(text) and size < MAX_READ:
        done.append(unicodedata.normalize("NFKC", text[at : at + _SLICE]))
        size, at = size + len(done[-1]), at + _SLICE
    return "".join(done)


def read_words(text: str, read: Detect, unsure: float) -> tuple[str, float]:
    """`read`'s guess on words_for_the_model(text). With combining marks (of any script) on
    over MAX_MARKED_SHARE of its letters, the guess without them when that one is surely
    foreign and the first is not: an acute on each letter, which NFKC made "ú" or "ń", let 29
    of 103 foreign notes through, a Cyrillic titlo 30, a Hebrew sheva 16; a decomposed (NFD)
    Vietnamese note keeps its first guess. Letters spaced out into words run together:
    SPACED_OUT."""
    words, despaced = _read_as(text)
    if despaced and _run_together(words):
        return SPACED_OUT, 1.0
    guess = read(words)
    if (guess[0] != "en" and guess[1] >= unsure) or text.isascii():
        return guess
    marks = {ord(ch) for ch in set(_NON_ASCII.findall(text)) if unicodedata.category(ch)[0] == "M"}
    count = sum(text.count(chr(mark)) for mark in marks)
    if not count or count <= MAX_MARKED_SHARE * sum(map(str.isalpha, text)):
        return guess
    bare = read(words_for_the_model(text.translate(dict.fromkeys(marks))))
    return bare if bare[0] != "en" and bare[1] >= unsure else guess


def quotations(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each quotation in text, marks included, leftmost first. Linear in
    the text (a pattern would go quadratic on openings that never close): a mark left open on
    a line is not looked for again on that line."""
    spans: list[tuple[int, int]] = []
    unclosed: dict[str, int] = {}  # a mark: where the line it was left open on ends
    at = 0
    while (opening := _OPENING.search(text, at)) is not None:
        mark, at = opening[0], opening.end()
        if unclosed.get(mark, -1) >= at:
            continue
        closing = _CLOSING[mark].search(text, at)
        if closing is None or closing[0] == "\n":
            unclosed[mark] = len(text) if closing is None else closing.start()
            continue
        spans.append((opening.start(), closing.end()))
        at = closing.end()
    return spans


def unquoted(text: str) -> str:
    """`text` with each quotation, marks included, replaced by a space."""
    kept: list[str] = []
    at = 0
    for start, end in quotations(text):
        kept.append(text[at:start])
        at = end
    return " ".join([*kept, text[at:]]) if kept else text


def own_english_share(
    units: Sequence[str], detect: Detect, min_bytes: int, min_score: float
) -> float:
    """The share of the units' letters, quotations included, in their own words that read as
    English to the vote, with no loanword look: each unit's rest of `min_bytes` or more on its
    own, the shorter rests together, left out when still shorter (UTF-8 bytes of letters, as
    the vote weighs them); a guess of another language below `min_score` does not count
    against. 0.0 when nothing is quoted."""
    rest = [unquoted(unit) for unit in units]
    total = sum(map(letter_bytes, units))
    if rest == list(units):
        return 0.0  # the usual note: no letter counted, the first reading stands
    # quotations are found in whole paragraphs, then read in pieces: a quotation a piece's end
    # cut in two counted as the note's own words (a Russian one in 8,000 characters, refused)
    voting = [piece for unit in rest if letter_bytes(unit) >= min_bytes for piece in pieces(unit)]
    pooled = "\n".join(unit for unit in rest if letter_bytes(unit) < min_bytes)
    if letter_bytes(pooled) >= min_bytes:
        voting.extend(pieces(pooled))  # short rests: foreign items beside the quote weigh too
    else:
        total -= letter_bytes(pooled)  # too few to say, as the vote leaves them out
    english = 0
    for unit in voting:
        lang, score = detect(unit)
        english += letter_bytes(unit) if lang == "en" or score < min_score else 0
    return english / total if total > 0 else 0.0
