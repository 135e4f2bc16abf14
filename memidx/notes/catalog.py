"""Message catalogs: distinct dotted message keys beside the short strings a program shows
(`- settings.title: Einstellungen`), read by their keys as code. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memidx.notes.catalog_files import MESSAGE_KEY
from memidx.notes.loanwords import LETTER_WORD
from memidx.notes.slots import numbered
from memidx.notes.terms import MAX_LONGER_SHARE, cased, cut_pieces, short_term
from memidx.notes.titlecase import prose_in_title_case

Detect = Callable[[str], tuple[str, float]]

# an item that may be a catalog's: a message key, then the sign of memidx.notes.glossary.PAIR
_KEYED = re.compile(rf"\s*{MESSAGE_KEY.pattern}\s*(?::|=|→|->|\u2014|\u2013| - )")
MAX_STRING_WORDS = 6  # a message catalog's string: `No se pudo guardar el archivo`
# one string in MAX_LONGER_SHARE may be longer, a message rather than a button (`Nie udało się
# zapisać zmian w profilu`: a Polish catalog was refused for its one string of seven words)
MAX_LONG_STRING_WORDS = 12
MAX_SHORT_STRING_WORDS = 3  # a button's or a title's: most strings beside a longer one


def a_catalog(pairs: Sequence[tuple[str, str]], detect: Detect) -> bool:
    """Whether pairs are a message catalog: distinct dotted message keys (`settings.title`,
    `checkout.card.expired`) beside the short strings a program shows in whatever language it
    translates to (`- settings.title: Einstellungen`), read by their keys as code. Its strings
    are of MAX_STRING_WORDS words or fewer, begin with a capital (a piece of a sentence seldom
    does; in a caseless script, a term: short_term) and are not prose cut in pieces (ending in
    a function word, but for one closing a whole string, memidx.notes.titlecase.CLOSING_WORDS;
    a caseless piece beginning or ending in a particle): a foreign note cut in pieces of 12 to
    40 characters behind keys passed 97 to 103 of 103, with no English at all. One string in
    MAX_LONGER_SHARE may be longer (_long_strings_few)."""
    labels, values = [label for label, _ in pairs], [value for _, value in pairs]
    if len(set(labels)) < len(labels) or not all(map(MESSAGE_KEY.fullmatch, labels)):
        return False
    if numbered(labels):
        return False
    strings = all(
        len(LETTER_WORD.findall(value)) <= MAX_LONG_STRING_WORDS
        and (value[:1].isupper() if cased(value) else short_term(label, value))
        for label, value in pairs
    )
    strings = strings and _long_strings_few(values)
    caseless = [value for value in values if not cased(value)]
    return (
        strings and not cut_pieces(caseless) and not prose_in_title_case(values, detect, whole=True)
    )


def keyed(unit: str) -> bool:
    """Whether a unit begins with a message key and a sign, as each of a catalog's items does:
    a note whose units are not is no catalog, and its units need no further reading for one."""
    return _KEYED.match(unit) is not None


def _long_strings_few(values: Sequence[str]) -> bool:
    """Whether a catalog's strings of more than MAX_STRING_WORDS words are one in
    MAX_LONGER_SHARE at most, beside strings most of which are MAX_SHORT_STRING_WORDS words or
    fewer: prose cut in runs of 40 or 50 characters has no such short strings around its long
    ones."""
    counts = [len(LETTER_WORD.findall(value)) for value in values]
    if not (longer := sum(count > MAX_STRING_WORDS for count in counts)):
        return True
    short = sum(count <= MAX_SHORT_STRING_WORDS for count in counts)
    return longer * MAX_LONGER_SHARE <= len(counts) and short * 2 > len(counts)
