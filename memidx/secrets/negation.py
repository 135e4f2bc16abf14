"""Code's negation of a variable given to a flag's name, told from a password led by `!`
given to the name of what holds one (pure)."""

from __future__ import annotations

import re

from memidx.secrets.identifiers import SECRET_WORDS, WORD
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.weak import NO_NAMES

# Code's negation of a variable, unquoted, given to a name of code, not all capitals, a space
# before its `=` (`isSecret = !isPublic`, `hasToken = !!user.token;`): words joined as code
# joins them, from a small letter on, digits at their ends; each was refused. A `.env` file's
# `PASSWORD=!hunter22`, a `.properties` file's `db.password=!secretpass`, `!Welcome2024` and
# `!hunter22x` are passwords.
IDENT = r"_?[a-z]++[0-9]*+(?:_[a-z]++[0-9]*+|[A-Z][a-z]++[0-9]*+)*+(?:\(\))?+"
# a member may be a constant's name (`!!process.env.CI`, refused), no digits in it
# (`password = !admin.ADMIN2024` was let through as a negation)
NEGATION = lazy(rf"!!?+{IDENT}(?:\.(?:{IDENT}|[A-Z][A-Z_]*+))*+[;,)]*+")
SPACED = lazy(r"[ \t](?::=|=)")
# A flag's name is negated, not a holder's: a secret's word last and no flag's word first
# (`password`, `db_password`, `apiKey`; a verb first is a flag's, `maskPassword = !unmasked`
# was refused) names what holds a secret, and `password = !hunter2`,
# an INI file's or my.cnf's, was let through as the negation of a variable `hunter2`. Given
# a holder, only code's shapes are a negation: a member, a call, `!!`, a `;` (HOLDER_CODE:
# `secretKey = !options.insecure;`), or a flag's name (`apiKey = !isProduction ? a : b`); not
# one word (`!hunter2`) nor words joined by case (`userPassword=!hunterTwo9` was let through).
# `store` is no flag's verb: `storePassword` is Android's keystore password (`!dragonfly` passed),
# nor `cache`: `cacheToken` is a cache's token (`cacheToken = !zqvtmwplxk` was let through)
FLAG_FIRST = frozenset(
    {"is", "has", "have", "can", "should", "must", "needs", "need", "was", "did", "does",
     "will", "use", "show", "hide", "no", "allow", "require", "requires", "mask", "unmask",
     "reveal", "remember", "save", "reset", "enable", "disable", "skip", "validate",
     "encrypt", "prompt", "ask", "force", "rotate", "keep", "toggle", "want", "wants"}
)  # fmt: skip
# One word negated given even to a flag's name is no variable's when no variable is so named:
# one of the commonest passwords no variable is named after (`savePassword = !letmein` was let
# through; `showPassword = !computer` was refused: weak.VARIABLE_WORDS), or a run of five
# letters or more without a vowel, no word's (`!zqvtmwplxk`)
NO_VOWEL = lazy(r"[b-df-hj-np-tv-xz]{5}", re.IGNORECASE)
ONE_WORD = lazy(r"!([a-z]++)[;,)]*+")  # a list's or a statement's end after it too
HOLDER_CODE = lazy(r"^!!|[.;,)]")
# a word and digits negated is a password (`password = !hunter22`): a variable so named
# (`!found2`) is short; without spaces around `=` (`isSecret=!isPublic`) code's names on both
# sides, with a hump or a dot, tell negation from a config file's `db.password=!secretpass`
WORD_DIGITS = lazy(r"!!?+[a-z]++[0-9]++[;,)]*+")
HUMP = lazy(r"[a-z0-9][A-Z]")


def negation(line: str, start: int, end: int, value: re.Match[str]) -> bool:
    """Whether an unquoted sign-led value given to the name line[start:end] is code's
    negation of a variable (NEGATION) given to a flag (FLAG_FIRST), not a word and digits
    (WORD_DIGITS)."""
    named = line[start : value.start()]
    if named.upper() == named or line[value.start(1) - 1] in "\"'`":
        return False  # `PASSWORD=!v4lue`: a config file's
    if SPACED.search(named) is None and not (
        HUMP.search(named) and (HUMP.search(value[1]) or "." in value[1])
    ):
        return False  # `db.password=!v4lue`: a config file's
    words = [w.lower() for w in WORD.findall(line[start:end].rpartition(".")[2])]
    holder = words and words[-1] in SECRET_WORDS and words[0] not in FLAG_FIRST
    first = (WORD.findall(value[1]) or [""])[0].lower()
    if holder and not HOLDER_CODE.search(value[1]) and first not in FLAG_FIRST:
        return False  # `password = !hunter2`: a holder's name (FLAG_FIRST) given a word
    if (word := ONE_WORD.fullmatch(value[1])) and (word[1] in NO_NAMES or NO_VOWEL.search(word[1])):
        return False  # `savePassword = !letmein`: no variable is so named
    return NEGATION.fullmatch(value[1]) is not None and WORD_DIGITS.fullmatch(value[1]) is None
