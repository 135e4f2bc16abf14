"""Lists of terms and their names or translations (`- Postgres: Олег Бартунов`, `- Save:
保存`): an item of a label in Latin letters and a short value that is a name or a word in a
script without capitals is read as its label alone, when the labels read together as English;
the value is what the English note lists, not the language it is written in."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from memidx.notes.catalog import a_catalog, keyed
from memidx.notes.function_words import ANY_FUNCTION_WORD
from memidx.notes.language_model import MIN_SCORE
from memidx.notes.loanwords import LETTER_WORD
from memidx.notes.slots import numbered, shared_word
from memidx.notes.terms import MAX_LONGER_SHARE, MAX_TERM_CHARS, cased, cut_pieces, short_term
from memidx.notes.titlecase import named, prose_in_title_case

Detect = Callable[[str], tuple[str, float]]

PAIR = re.compile(
    r"^(?P<label>[^:=→]{1,60}?)\s*(?::|=|→|->|\u2014|\u2013| - )\s*(?P<value>\S.{0,59})$"
)
LEAD_IN = re.compile(
    r"^(?P<label>[A-Za-z][A-Za-z0-9]*(?: [A-Za-z0-9]+){0,2})[.)]\s+(?P<value>\S.{0,59})$"
)
# a lead-in without a sign: a word or two and a count (`Step one bitte vor`, `Step number 3 vor`)
_COUNTS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty first second third fourth fifth sixth seventh "
    "eighth ninth tenth"
)
COUNTED = re.compile(
    rf"^(?P<label>[A-Za-z]+(?: [A-Za-z]+)? (?:\d{{1,3}}|{'|'.join(_COUNTS.split())}))\s+"
    r"(?P<value>\S.{0,59})$",
    re.IGNORECASE,
)
_LATIN_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 ./+#'()_-]*[A-Za-z0-9)+#]")
# a value in quotation marks is the string it quotes (`- cart.title: "Carrito"`)
_QUOTED = re.compile(r'"([^"]+)"|\u201c([^\u201c\u201d]+)\u201d|\'([^\']+)\'')
MAX_NAME_WORDS = 4  # "Олег Бартунов", "Santiago De Compostela"
_ELIDED = re.compile(r"['\u2019]")  # `d'Orsay`: the particle `d`
# A UI string of two words holding no language's function word (`- Open file: Datei öffnen`)
# is a term too when every value of the list is a term: a German UI glossary of verb phrases
# passed before values were read alone, then was refused as German; prose cut in pieces holds
# function words in some of its pieces
MAX_PHRASE_WORDS = 2
MIN_PAIRS = 2  # one pair is a sentence with a colon as likely as a list
# The labels of more pairs need as many letters as their caseless terms and the signs between
# have characters: prose cut in pieces of 3 behind short labels (`- Yes: 重启后`, `- No: 服务没`)
# then fails, as a long list shows; a few short words (`- Yes: はい`, `- No: いいえ`, `- OK:
# 了解`) have as many letters in their labels as characters, no more, and were refused
MAX_FEW_PAIRS = 6
# Names beside labels lose a cut note's function words only when its language is this sure:
# Danish cut in threes beside English labels (`Build: Udrulning Til Staging`) read at 0.77
LANGUAGE_SCORE = MIN_SCORE


def named_pair(unit: str) -> tuple[str, str, bool] | None:
    """The label and value of a list item `label: value` whose label is in Latin letters and
    whose value is a name of MAX_NAME_WORDS words or fewer (then True), or one short word in a
    caseless script (then False)."""
    if (pair := _pair(unit)) is None:
        return None
    label, value = pair
    if named(value) and len(LETTER_WORD.findall(value)) <= MAX_NAME_WORDS:
        return label, value, True
    caseless = value.isalpha() and not any(ch.isupper() or ch.islower() for ch in value)
    return (label, value, False) if caseless and short_term(label, value) else None


def labels_for_pairs(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, a list of named pairs read by their labels when there are MIN_PAIRS or more,
    no label nor value twice (a glossary names each term once; prose cut in pieces repeats its
    words: `- Build: 의`, `- Deploy: 의`), the labels, read together, not surely another
    language (German terms beside Russian ones are no English note), like a glossary's
    (_glossary_labels) and the names without function words (`- Step one: Bitte Vor Dem` cut
    from a German note)."""
    labels, seen, names, terms, longer = dict[str, str](), set[str](), list[str](), 0, 0
    signs = 0  # the characters between each caseless term and its label (`: `)
    for unit in units:
        if (pair := named_pair(unit)) is not None:
            label, value, name = pair
            if (key := f"label:{label}") in seen or (term := f"value:{value}") in seen:
                return list(units)  # at once: a megabyte of one item took a second
            labels[unit] = label
            seen |= {key, term}
            names += [value] if name else []
            terms += 0 if name else len(value)
            signs += 0 if name else len(unit.strip()) - len(label) - len(value)
            longer += not name and len(value) > MAX_TERM_CHARS
    terms += signs if len(labels) > MAX_FEW_PAIRS else 0  # a few: `- No: いいえ`, `- OK: 了解`
    if len(labels) < MIN_PAIRS or not _glossary_labels(list(labels.values()), terms):
        return list(units)
    if longer * MAX_LONGER_SHARE > len(labels) or _cut_from_prose(labels):
        return list(units)  # a sentence's runs cut behind long labels, or cut anywhere
    if prose_in_title_case(names, detect, anywhere=True, sure=LANGUAGE_SCORE):
        return list(units)
    lang, score = detect("\n".join(labels.values()))
    if lang != "en" and score >= MIN_SCORE:
        return list(units)
    return [labels.get(unit, unit) for unit in units]


def _cut_from_prose(labels: dict[str, str]) -> bool:
    """Whether terms in a caseless script are pieces cut from prose: MIN_CUT_PIECES of them,
    and MIN_CUT_SHARE or more, begin with a mark or a particle that binds to the word before
    (`を`, `ー`, `っ`, `的`, `을`) or end in a particle (`の`, `了`): a term never does (`保存`,
    `ファイルを開く`); Chinese, Japanese and Korean notes cut in pieces of 3 to 12 behind
    distinct English labels passed 15 of 15."""
    found = (_pair(unit) for unit in labels)
    return cut_pieces([pair[1] for pair in found if pair is not None and not cased(pair[1])])


def keys_of_catalog(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, the items of a message catalog (a_catalog) read as their keys, as code: read
    before the list's names are read by their labels (labels_for_pairs), as those took the
    catalog's one-word strings (`Einstellungen`, `Speichern`), and its other strings, alone,
    were no catalog and voted (a German one under an English line, refused as German)."""
    if sum(map(keyed, units)) < MIN_PAIRS:  # most notes: read for pairs once, not twice
        return list(units)
    found = [_pair(unit) or _lead_in(unit) for unit in units]
    if len(pairs := [pair for pair in found if pair is not None]) < MIN_PAIRS:
        return list(units)
    if not a_catalog(pairs, detect):
        return list(units)
    return [unit if pair is None else pair[0] for unit, pair in zip(units, found, strict=True)]


def values_of_pairs(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, each item `label: value` of a list of MIN_PAIRS or more read as its value
    (after labels_for_pairs): the item says what its value says, and an English lead-in before
    each piece of another language's prose (`- Step one: bitte vor dem`, `- Build: bitte vor
    dem`) made the pieces read as English. But for a glossary's terms (_glossary_terms: `-
    Save: enregistrer`), which the item reads as it is, label and term, and its phrases
    (_a_phrase: `- Open file: Datei öffnen`, when every value is a term or one), read by
    their labels."""
    found = [_pair(unit) or _lead_in(unit) for unit in units]  # a list: twice counts twice
    if len(pairs := [pair for pair in found if pair is not None]) < MIN_PAIRS:
        return list(units)
    if a_catalog(pairs, detect):
        return [unit if pair is None else pair[0] for unit, pair in zip(units, found, strict=True)]
    terms = [value for _, value in pairs if _a_term(value)]
    if all(_a_term(value) or _a_phrase(value) for _, value in pairs):
        terms = [value for _, value in pairs]
    if not _glossary_terms([label for label, _ in pairs], terms, detect):
        terms = list[str]()
    # a phrase beside its label read with it outweighed the label (`Änderungen speichern`), and
    # so did places when every value is a term (`- Berlin: Straße des 17. Juni`, `- Bonn: Platz
    # der Vereinten Nationen` under one line of English read as German)
    every = all(_a_term(value) or _a_phrase(value) for _, value in pairs)
    phrases = {term for term in terms if _by_label(term, every)}
    whole = set(terms) - phrases
    return [
        unit if pair is None or pair[1] in whole else pair[0] if pair[1] in phrases else pair[1]
        for unit, pair in zip(units, found, strict=True)
    ]


def quotations_of_pairs(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, each item `label: "value"` of a list of MIN_PAIRS or more such items read as
    its quotation alone when the labels are slots, not words of the note's own: numbered keys
    (numbered: `settings.key3`) or labels sharing a word (shared_word: `Step one`, `Step
    two`); or when the quotations are prose cut in pieces (_cut_quotations). For the reading
    without quotations (memidx.notes.quotation): another language's prose cut in quoted pieces
    behind them passed 91 and 77 of the 103 labeled foreign notes (one word a piece), the
    labels its English, and 70 to 96 behind distinct labels of one to three words; distinct
    labels before whole strings (`- Payment: "Insérez votre carte"`) are the note's own words
    and count."""
    matches = [PAIR.match(unit.strip()) for unit in units]
    quoted = {
        at: (match["label"].strip(), match["value"].strip())
        for at, match in enumerate(matches)
        if match is not None and _QUOTED.fullmatch(match["value"].strip()) is not None
    }
    labels = [label for label, _ in quoted.values()]
    if len(quoted) < MIN_PAIRS:
        return list(units)
    if not (numbered(labels) or shared_word(labels) or _cut_quotations(quoted.values(), detect)):
        return list(units)
    return [quoted[at][1] if at in quoted else unit for at, unit in enumerate(units)]


def _cut_quotations(pairs: Iterable[tuple[str, str]], detect: Detect) -> bool:
    """Whether quoted values are pieces cut from prose, not whole strings: they end in
    function words of the language they surely read as (prose_in_title_case), or, in a
    caseless script, begin or end in a particle (cut_pieces)."""
    found = [_QUOTED.fullmatch(value) for _, value in pairs]
    values = [next(text for text in quoted.groups() if text) for quoted in found if quoted]
    caseless = [value for value in values if not cased(value)]
    return cut_pieces(caseless) or prose_in_title_case(values, detect)


def _by_label(term: str, every: bool) -> bool:
    """Whether a glossary's term is read by its label: a phrase (_a_phrase) of two words or
    more, or a place (_a_place) in a list whose every value is a term or a phrase."""
    words = LETTER_WORD.findall(term)
    lower = any(word[0].islower() for word in words)  # a name in Title Case: labels_for_pairs
    return len(words) > 1 and (_a_phrase(term) or (every and lower and _a_place(words)))


def _a_term(value: str) -> bool:
    """Whether a value is one word (`enregistrer`), a name (`Олег Бартунов`) or one short word
    in a script without capitals (`保存`): what a glossary lists beside its labels."""
    words = LETTER_WORD.findall(value)
    caseless = value.isalpha() and not any(ch.isupper() or ch.islower() for ch in value)
    return (
        len(words) == 1
        or (named(value) and len(words) <= MAX_NAME_WORDS)
        or (caseless and len(value) <= MAX_TERM_CHARS)
        or _a_place(words)
    )


def _a_place(words: Sequence[str]) -> bool:
    """Whether words are a name with its particles in lower case (`Palacio de Congresos`,
    `Musée d'Orsay`, `Fontana di Trevi`): first and last capitalised, each word in lower case a
    function word of a listed language. Read alone, a trip's places beside English labels
    were refused as Spanish, French or Italian; read with their labels, they passed before."""
    if not 2 <= len(words) <= MAX_NAME_WORDS + 2 or not words[0][0].isupper():
        return False
    particles = (_ELIDED.split(word.lower())[0] for word in words if not word[0].isupper())
    return words[-1][0].isupper() and all(word in ANY_FUNCTION_WORD for word in particles)


def _a_phrase(value: str) -> bool:
    """Whether a value is a UI string of MAX_PHRASE_WORDS words without a function word of any
    language (`Datei öffnen`, `Konto löschen`), which prose cut in pieces seldom is throughout."""
    words = LETTER_WORD.findall(value.lower())
    short = len(words) <= MAX_PHRASE_WORDS and cased(value)
    return short and not ANY_FUNCTION_WORD.intersection(words)


def _glossary_terms(labels: Sequence[str], terms: Sequence[str], detect: Detect) -> bool:
    """Whether pairs are a glossary's: distinct labels sharing no word in more than half of
    them, more than half of the values terms, no term twice (prose repeats its words: `- Build:
    의`, `- Deploy: 의`), and terms that are not prose cut in pieces (one word or a few at a
    time: 15% of them, one at least, end in a function word of the language they surely read
    as, `- Build: vor`, `- Deploy: dem`, as a glossary's terms do not)."""
    if len(set(labels)) < len(labels) or shared_word(labels) or len(terms) * 2 <= len(labels):
        return False
    return len(set(terms)) == len(terms) and not prose_in_title_case(terms, detect)


def _lead_in(unit: str) -> tuple[str, str] | None:
    """The lead-in of up to three words in Latin letters and the rest of a list item whose
    lead-in ends in a dot or a parenthesis (`Step one. bitte vor dem`, `Step 1) bitte`), or
    of a word or two and a count (`Step one bitte vor`: 14 of 103 foreign notes cut so passed)."""
    if (found := LEAD_IN.match(unit.strip()) or COUNTED.match(unit.strip())) is None:
        return None
    return found["label"], found["value"].strip()


def _pair(unit: str) -> tuple[str, str] | None:
    """The label in Latin letters and the value of a list item `label: value`, if it is one."""
    if (found := PAIR.match(unit.strip())) is None:
        return None
    label, value = found["label"].strip(), found["value"].strip()
    if (quoted := _QUOTED.fullmatch(value)) is not None:
        value = next(text for text in quoted.groups() if text)
    return (label, value) if _LATIN_LABEL.fullmatch(label) else None


def _glossary_labels(labels: Sequence[str], terms: int) -> bool:
    """Whether labels look like a glossary's: no word in more than half of them, from
    MIN_SHARED_LABELS (`Item one`, `Item two` before each piece of a Japanese note), and no
    fewer letters than the characters of the terms in a caseless script (`Save: 保存`; in a
    list of more than MAX_FEW_PAIRS, the signs between them count with the terms)."""
    if shared_word(labels):
        return False
    return terms <= sum(len("".join(LETTER_WORD.findall(label))) for label in labels)
