"""The English-only check for notes: extract the prose (memidx.notes.prose), read each
paragraph with the language model (memidx.notes.language_model), vote by letters."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memidx.notes.glossary import (
    keys_of_catalog,
    labels_for_pairs,
    quotations_of_pairs,
    values_of_pairs,
)
from memidx.notes.language_model import MIN_SCORE, detect_language
from memidx.notes.letters import runs
from memidx.notes.loanwords import (
    english_beside_greek_or_cyrillic,
    english_beside_loanwords,
    english_beside_variables,
)
from memidx.notes.phrasebook import phrases_of_pairs
from memidx.notes.prose import in_pieces, letter_bytes, prose_units, script_of
from memidx.notes.quotation import MIN_OWN_SHARE, own_english_share
from memidx.notes.titlecase import named, sure_bar, unmasked, voteless_names

Detect = Callable[[str], tuple[str, float]]  # (language code, score) of a text's top guess
Units = Sequence[str]  # a note's paragraphs, list items and headings (prose_units)

_QUOTE_LINE = re.compile(r"^\s*>", re.MULTILINE)  # without one, all the prose is the author's
MIN_UNIT_BYTES = 30  # UTF-8 bytes of letters a paragraph needs before its language counts
# short paragraphs read together (judge_pooled): 1 of 2,950 pools of TIL's English ones >= 0.8
MIN_POOL_BYTES, MIN_POOL_SCORE, MIN_ALONE_SCORE = 40, 0.8, 0.5  # ALONE: a pooled unit as English
MIN_ALONE_BYTES = 20  # "We now set LANG=C before every job." has 27
MAX_ALONE_UNITS = 64  # a longer list is not read item by item (a 1 MB list took 5 s)


@dataclass(frozen=True, slots=True)
class LanguageVerdict:
    """Whether a note is written in English, and why not when it is not."""

    english: bool
    language: str | None  # the dominant non-English language code, when one was detected
    share: float  # the share of letters that voted against English (0.0 to 1.0)
    reason: str


# --- the vote (pure, given a detector) --------------------------------------------------------


def judge_units(units: Units, detect: Detect, own: Units | None = None) -> LanguageVerdict:
    """Vote by paragraph, the short ones of `own` (default: all) as one (read_pool): fail when
    non-English paragraphs hold most of the counted letters."""
    names = voteless_names(units, detect)
    weighed = ((u, letter_bytes(u)) for u in units)  # each unit weighed once
    found = [(u, w) for u, w in weighed if w >= MIN_UNIT_BYTES and u not in names]
    if not found:
        return judge_pooled(units, detect, own)
    against = read_pool(units if own is None else own, detect)[2]  # only ever against
    total = sum(against.values())
    for unit, weight in found:
        total += weight
        if (lang := foreign_language(unit, detect)) is not None:
            against[lang] = against.get(lang, 0) + weight
    share = sum(against.values()) / total
    if share <= 0.5:
        return LanguageVerdict(True, None, share, f"{1 - share:.0%} of the prose reads as English")
    language = max(against, key=lambda lang: against[lang])
    return LanguageVerdict(
        False, language, share, f"{share:.0%} of the prose is not English (mostly {language})"
    )


def foreign_language(unit: str, detect: Detect) -> str | None:
    """The language a unit surely reads as when it is not English (nor English with loanwords)."""
    lang, score = detect(unit)
    return (
        None
        if lang == "en"
        or score < MIN_SCORE
        or english_beside_loanwords(unit, detect)
        or (score < MIN_POOL_SCORE and english_beside_variables(unit, detect))  # unsure: 0.35
        or english_beside_greek_or_cyrillic(unit, detect)
        else lang
    )


def judge_pooled(units: Units, detect: Detect, own: Units | None = None) -> LanguageVerdict:
    """A note of short units only fails when most of their letters are in pieces that surely
    read as another language (read_pool); else judge_script."""
    weight, sure, against = read_pool(units if own is None else own, detect, decided=True)
    if not against or sure * 2 <= weight:
        return judge_script(units, detect)
    lang = max(against, key=lambda lang: against[lang])
    return LanguageVerdict(
        False, lang, 1, f"its short paragraphs, read together, are not English ({lang})"
    )


def read_pool(
    units: Units, detect: Detect, *, decided: bool = False
) -> tuple[int, int, dict[str, int]]:
    """Short units but names and titles (`named`) read together, from MIN_POOL_BYTES letters,
    MAX_PIECE_CHARS at a time: their letters, those of the pieces that surely read as another
    language, and those by language, without the units read as English alone (a sentence
    under French errors; in a pool of MAX_ALONE_UNITS or fewer). Never block quotes.
    `decided`: stop once the sure pieces hold more than half of the letters, as judge_pooled
    then refuses whatever the rest reads as (1 MB of short German paragraphs: 1.2 s of CPU)."""
    pool = [u for u in units if letter_bytes(u) < MIN_UNIT_BYTES and not named(u)]
    sure, against = 0, dict[str, int]()
    if (weight := letter_bytes("".join(pool))) < MIN_POOL_BYTES:
        return weight, sure, against
    for piece in runs(pool):
        lang, score = detect(pooled := "\n".join(piece))
        bar = sure_bar(lang, MIN_POOL_SCORE)  # Norwegian items read as no at 0.50
        if lang == "en" or score < bar or letter_bytes(pooled) < MIN_POOL_BYTES:
            continue
        if english_beside_loanwords(pooled, detect):
            continue
        sure += (letters := letter_bytes(pooled))
        alone = (u for u in piece if len(pool) <= MAX_ALONE_UNITS and _english_alone(u, detect))
        against[lang] = against.get(lang, 0) + letters - sum(map(letter_bytes, alone))
        if decided and sure * 2 > weight:
            break
    return weight, sure, against


def _english_alone(unit: str, detect: Detect) -> bool:
    """Whether a pooled unit of MIN_ALONE_BYTES letters or more reads as English alone: a
    shorter one is a fragment the model guesses at (German "Push make test" read as English)."""
    if letter_bytes(unit) < MIN_ALONE_BYTES:
        return False
    lang, score = detect(unit)
    return lang == "en" and score >= MIN_ALONE_SCORE


def judge_script(units: Sequence[str], detect: Detect) -> LanguageVerdict:
    """For notes too short to vote on: fail when most letters are not in the Latin script."""
    letters = "".join(filter(str.isalpha, "".join(units)))
    if not letters:
        return LanguageVerdict(True, None, 0.0, "no prose to judge")
    scripts: dict[str, int] = {}
    for ch, count in Counter(letters).items():  # each letter's name once: 1 MB took ~1 s
        if (script := script_of(ch)) != "LATIN":
            scripts[script] = scripts.get(script, 0) + count
    share = sum(scripts.values()) / len(letters)
    if share <= 0.5:
        return LanguageVerdict(True, None, share, "too short to judge; written in Latin script")
    script = max(scripts, key=lambda s: scripts[s])
    lang, _ = detect(" ".join(units))
    language = None if lang == "en" else lang
    return LanguageVerdict(
        False, language, share, f"too short to judge; {share:.0%} of the letters are {script}"
    )


def _as_read(units: Units, detect: Detect) -> list[str]:
    """Units as the vote reads them: Title Case prose in lower case (memidx.notes.titlecase),
    a message catalog by its keys, whatever its strings are (names too), then terms listed
    with their names or translations by their labels (memidx.notes.glossary), English phrases
    listed with their translations by the phrases (memidx.notes.phrasebook)."""
    catalogs = keys_of_catalog(units, detect)
    listed = labels_for_pairs(phrases_of_pairs(catalogs, detect), detect)
    return unmasked(values_of_pairs(listed, detect), detect)


# --- the check ----------------------------------------------------------------------------------


def check_text(text: str, detect: Detect | None = None) -> LanguageVerdict:
    """Judge the language of one note's Markdown text. Block quotes (someone else's words) vote
    only when the author's own prose is too short to; memidx.notes.quotation: quoted words."""
    detect = detect or detect_language
    paragraphs = prose_units(text, quotes=False)
    own = _as_read(in_pieces(paragraphs), detect)  # in pieces; quotations: whole paragraphs
    if not any(letter_bytes(unit) >= MIN_UNIT_BYTES for unit in own):
        units = _as_read(in_pieces(prose_units(text)), detect) if _QUOTE_LINE.search(text) else own
        return judge_units(units, detect, own)  # no second reading: block quotes vote
    if (verdict := judge_units(own, detect)).english:
        return verdict
    share = own_english_share(
        quotations_of_pairs(paragraphs, detect), detect, MIN_UNIT_BYTES, MIN_SCORE
    )
    if share < MIN_OWN_SHARE:
        return verdict  # refused, and not for the words it quotes
    return LanguageVerdict(True, None, 1 - share, f"{share:.0%} is English, beside quotations")
