"""A table's columns of short cells that are prose cut in cells (a foreign note cut in runs of
a few words in a table's cells), read as one paragraph each; labels, terms, UI strings and a
glossary's translations do not vote. Pure."""

from __future__ import annotations

import re
from collections import Counter

from memidx.notes.function_words import (
    ANY_FUNCTION_WORD,
    CLOSING_WORDS,
    ENGLISH_FUNCTION_WORDS,
    FUNCTION_WORDS,
)
from memidx.notes.language_names import LANGUAGE_NAMES
from memidx.notes.letters import runs

MIN_CELL_BYTES = 30  # a cell with as many bytes of letters votes alone, as a paragraph does
MIN_FUNCTION_CELLS = 2  # a table's shorter cells holding a function word: prose cut in cells
_CELL_WORD = re.compile(r"\w+")
_ANY_WORD = ANY_FUNCTION_WORD | ENGLISH_FUNCTION_WORDS


def prose_columns(rows: list[list[str]], weights: list[list[int]]) -> list[str]:
    """The cells of each column of a table's rows holding fewer than MIN_CELL_BYTES bytes of
    letters (`weights`: each cell's; the others vote alone), when they are prose cut in cells
    (_cut_in_cells), joined in runs of MAX_PIECE_CHARS: a foreign note cut in runs of 12 to 30
    characters in a table's cells passed 59 to 83 of the 103 labeled foreign notes. So are the
    translations beside a column of sentences (Spanish sentences beside their shorter English
    were refused as Spanish). A column of labels, terms or UI strings (`Zeitüberschreitung`,
    `Datei öffnen`) does not vote, nor do columns of prose in different languages (_languages:
    a glossary's translations, `Le paiement a échoué` beside `El pago ha fallado`, refused
    its English). An English column cut in cells votes too, beside them, and is no glossary's
    (`Save the file` beside `Die Datei speichern`: the German alone voted and refused an English
    note of its translations)."""
    short = [
        [
            row[column]
            for row, ws in zip(rows, weights, strict=True)
            if column < len(row) and 0 < ws[column] < MIN_CELL_BYTES
        ]
        for column in range(max(map(len, rows), default=0))
    ]
    prose = [cells for cells in short if _cut_in_cells(cells)]
    common = set(FUNCTION_WORDS)
    for cells in prose:
        if not _english(cells):
            common &= _languages(cells)
    if not common and not any(map(_pieces, prose)):
        return []  # a glossary's translations
    return ["\n".join(run) for cells in prose for run in runs(cells)]


# A column's header naming a language: its code (`de`, `de-DE`, `pt_BR`), its English name or
# its own (`Deutsch`, `Français`); English's (`en`, `en-US`, `English`, `EN (source)`)
ENGLISH_NAMES = frozenset({"en", "eng", "english"})
ENDONYMS = frozenset(
    {"deutsch", "français", "francais", "español", "espanol", "italiano", "português",
     "portugues", "nederlands", "polski", "svenska", "dansk", "norsk", "suomi", "türkçe",
     "čeština", "русский", "українська", "日本語", "中文", "한국어"}
)  # fmt: skip
LANGUAGE_WORDS = (
    ENGLISH_NAMES | ENDONYMS | set(LANGUAGE_NAMES) | {n.lower() for n in LANGUAGE_NAMES.values()}
)
# Codes that are also a column's English word or abbreviation (`| id | name |`, `| No | Task |`,
# `| ms |`): a language's only beside another language's unambiguous name or code (`| en | de |
# it |`), never beside English's alone (`| ID | English |` is a table of English, and votes)
AMBIGUOUS_CODES = frozenset(
    {"id", "it", "no", "he", "hi", "ms", "pt", "th", "tr", "el", "ro", "ca"}
)  # fmt: skip
# Words a header may hold after a language's name: what its column holds (`English text`,
# `German translation`); any other (`Polish notation`, `English docs link`) names no language
COLUMN_WORDS = frozenset(
    {"text", "texts", "translation", "translations", "term", "terms", "string", "strings",
     "source", "target", "original", "version", "phrase", "phrases", "word", "words", "name",
     "names", "label", "labels", "value", "values"}
)  # fmt: skip
_HEADER_WORD = re.compile(r"[^\W\d_]+")
_ASIDE = re.compile(r"\([^)]*\)")
_CODE = re.compile(r"[^\W\d_]{2,3}(?:[-_][^\W\d_]{2,4})?")


def translated_columns(header: list[str], rows: list[list[str]]) -> set[int]:
    """The columns of a table of translations, which do not vote: under a header naming English
    and other languages alone (`| EN | DE |`, `| English | German |`), whose English column's
    cells are English (_english), every column. Such a table is a note's data, documenting
    translations, and its prose outside the table decides: its German cells, longer than their
    English, refused an English note (65 % to 77 % German), and its English column alone voting
    let a German paragraph beside it through."""
    named = header_languages(header)
    english = [at for at, name in enumerate(named) if name == "en"]
    others = {at for at, name in enumerate(named) if name not in (None, "en")}
    if len(english) != 1 or len(others) != len(named) - 1:
        return set()  # a column of keys or notes beside them: a glossary, read as before
    cells = [row[english[0]] for row in rows if english[0] < len(row) and row[english[0]]]
    return {*others, *english} if len(cells) >= 2 and _english(cells) else set()


def foreign_cells(header: list[str], rows: list[list[str]]) -> list[str]:
    """The cells of a table of translations' English column (translated_columns) that are
    not English: more of one listed language's function words in a cell than English's. A
    column headed English must hold English: a German paragraph in it passed unread, as its
    table's columns do not vote; such a cell votes as a paragraph does."""
    named = header_languages(header)
    column = named.index("en") if "en" in named else -1
    cells = [row[column] for row in rows if 0 <= column < len(row) and row[column]]
    return [cell for cell in cells if _more_foreign(_words(cell))]


def _more_foreign(words: frozenset[str]) -> bool:
    """Whether `words` hold more function words of one listed language than of English."""
    english = len(ENGLISH_FUNCTION_WORDS & words)
    return any(len(function & words) > english for function in FUNCTION_WORDS.values())


def header_languages(header: list[str]) -> list[str | None]:
    """`en`, `other` or None for each of a header's cells (_language_named); an ambiguous code
    (AMBIGUOUS_CODES) names a language only beside another language's name or code."""
    named = [_language_named(cell) for cell in header]
    other = "other" in named
    return [("other" if other else None) if name == "ambiguous" else name for name in named]


def _language_named(cell: str) -> str | None:
    """`en` when a header's cell names English, `other` when another language (`ambiguous`
    for AMBIGUOUS_CODES), else None: the cell a language's code alone (a region after it:
    `de-DE`, `pt_BR`), or its name then words of COLUMN_WORDS alone; an aside in brackets is
    left out (`EN (source)`). Its first word alone named a language: `| id | name |` held
    Indonesian, `| No | English |` Norwegian beside English, and no column of it voted."""
    text = _ASIDE.sub(" ", cell.lower()).strip()
    words = _HEADER_WORD.findall(text)
    if not words or words[0] not in LANGUAGE_WORDS:
        return None
    if _CODE.fullmatch(text) is None and not COLUMN_WORDS.issuperset(words[1:]):
        return None
    if words[0] in ENGLISH_NAMES:
        return "en"
    return "ambiguous" if words == [words[0]] and words[0] in AMBIGUOUS_CODES else "other"


def _cut_in_cells(cells: list[str]) -> bool:
    """Whether a column's cells are prose: MIN_FUNCTION_CELLS of them, a fourth at least, hold
    two words or more, one a function word of a listed language or English, as labels, terms
    and UI strings seldom do (a cell of one word is a label, `a`, `d`, whatever it reads as)."""
    found = (_words(cell) for cell in cells)
    function = sum(len(words) > 1 and not _ANY_WORD.isdisjoint(words) for words in found)
    return function >= max(MIN_FUNCTION_CELLS, len(cells) / 4)


def _pieces(cells: list[str]) -> bool:
    """Whether a column's cells are pieces cut from prose, not a glossary's whole strings: a
    fourth of them begin in lower case or end in a function word (`die Tests lokal`, `ausführen
    und dann`; but for a word that closes a sentence, `Datei existiert nicht`: CLOSING_WORDS):
    a German and a French note side by side in cells passed 61 of 103 as a glossary."""
    return sum(map(_a_piece, cells)) * 4 >= len(cells)


def _a_piece(cell: str) -> bool:
    """Whether a cell begins in lower case or ends in a function word that closes no sentence."""
    words = _CELL_WORD.findall(cell.lower())
    return cell[:1].islower() or (
        bool(words) and words[-1] in _ANY_WORD and words[-1] not in CLOSING_WORDS
    )


def _english(cells: list[str]) -> bool:
    """Whether more of a column's cells hold an English function word than hold any listed
    language's (`Open a file`: `a` is Czech, Hungarian and Polish too; `the` is English)."""
    held = [_words(cell) for cell in cells]
    english = sum(not ENGLISH_FUNCTION_WORDS.isdisjoint(words) for words in held)
    listed = (sum(not f.isdisjoint(words) for words in held) for f in FUNCTION_WORDS.values())
    return english > max(listed, default=0)


def _languages(cells: list[str]) -> frozenset[str]:
    """The languages whose function words the most cells hold (`de la` is French as much as
    Spanish: a French note split over two columns read as two languages by the first listed)."""
    held = Counter(
        lang
        for words in map(_words, cells)
        for lang, function in FUNCTION_WORDS.items()
        if not function.isdisjoint(words)
    )
    most = max(held.values(), default=0)
    return frozenset(lang for lang, count in held.items() if count == most)


def _words(cell: str) -> frozenset[str]:
    """The words of a cell, in lower case (`k0`, a key, holds no `k`)."""
    return frozenset(_CELL_WORD.findall(cell.lower()))
