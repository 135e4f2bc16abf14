"""A value that is a name of code with digits in it, not a password (pure).

Code names a new version of a thing with its number (`passwordHashV2`, `getSecretV3`,
`userTokenV2`, `db_password_v2`) and a technical thing with its own (`oauth2Token`,
`sha256Secret`, `s3SecretKey`). Given to a secret's key (`password = passwordHashV2`,
`secret => getSecretV3`), each was refused as a secret: a digit among letters of both cases
has a password's entropy, and identifiers.names_a_secret read letters alone. Such a name is
read as that function reads one once its digits are taken off, but only where each run of
digits is a version's after a word (`V2`, `_v3`) or a technical word's of three letters or
more (technical.technical: `oauth2`, `sha256`, `base64`; a few services', `s3`, `ec2`): a
password swaps digits in elsewhere (`Tr0ub4dor&3`, `aB3xK9mQ2`, `Summer2024`, `hunter2`,
`userToken2`), and so does a random string's tail after them, letters that are no word
(`tokenV9X`, `apiKeyV2Zq`, `tokenV9Qa`): each stays judged. A name whose words name no secret stays
judged too, as without digits (`correctHorseV2`, as `correctHorseBattery`, a passphrase).
"""

from __future__ import annotations

from memidx.secrets.identifiers import SECRET_WORDS, WORD, names_a_secret
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.technical import technical

# a name's pieces: a word and the digits after it (`oauth2`, `Token`, `V2`, `SECRET`), `_`
PIECE = lazy(r"_|[A-Z]?[a-z]++[0-9]*+|[A-Z]++(?![a-z])[0-9]*+")
DIGITS = "0123456789"
# services named with a digit that technical's vocabulary holds no number for
SERVICES = frozenset({"s3", "ec2", "x509", "b64"})
VERSION = lazy(r"[Vv][0-9]{1,3}")


def numbered_name(value: str) -> bool:
    """Whether `value`, with digits, is a name of code (see the module), not a password."""
    name = _unnumbered(value)
    return name is not None and names_a_secret(name)


# the words of a short name of code given to a password (`password = hashV2`): a secret's
# (`keyV2`, `tokenV3`) or what code derives one with; any other word and a version is a
# person's password as much as a name (`adminV1`, `rootV1`, `toor_v2` were let through), and
# so is `pass` (`passV1`, as `Pass1`)
VERSIONED_WORDS = SECRET_WORDS - {"pass"} | {"hash", "salt", "hmac", "nonce", "seed", "kdf", "iv"}


def versioned_word(value: str) -> bool:
    """Whether `value`, a short one, is a word of code and its version (`hashV2`, `saltV3`,
    `hash_v2`) read as numbered_name reads a longer name: from a small letter, its words
    VERSIONED_WORDS, its digits a version's after one. A short password given to a person's
    password (short.py) is none: `password = hashV2` was refused."""
    name = _unnumbered(value)
    if name is None or not value[0].islower() or VERSION.search(value) is None:
        return False
    return all(word.lower() in VERSIONED_WORDS for word in WORD.findall(name))


def _unnumbered(value: str) -> str | None:
    """`value`, a name of code with digits, without them (`oauth2Token` as `oauthToken`,
    `passwordHashV2` as `passwordHash`), or None when its digits are a password's."""
    if len(value) > 64 or not value[:1].isalpha() or not any(c in DIGITS for c in value):
        return None
    pieces = [piece[0] for piece in PIECE.finditer(value)]
    if "".join(pieces) != value:
        return None  # a sign, or digits no word stands before
    kept: list[str] = []
    numbered = False  # a run of digits read: only words follow it (`V2Async`, not `V9X`)
    for piece in pieces:
        word = piece.rstrip(DIGITS)
        if word == piece:
            if numbered and not _word(piece):
                return None  # `tokenV9X`, `apiKeyV2Zq`: a random string's tail
            kept.append(piece)
            continue
        numbered = True
        if VERSION.fullmatch(piece) and _after_a_word(kept):
            if kept[-1] == "_":
                kept.pop()  # `db_password_v2`: the version and its `_`
        elif piece.lower() in SERVICES or (len(word) >= 3 and technical(piece.lower())):
            kept.append(word)  # `oauth2Token` read as `oauthToken`
        else:
            return None  # `hunter2`, `B3`, `Token2`, `py4k`: a password's digits
    name = "".join(kept).strip("_")
    return None if not name or "__" in name else name


# the words of two letters code names a thing with after its version (`getTokenV2Id`,
# `userTokenV2ById`); any other two letters there are a random string's (`tokenV9Qa`, shown)
TWO_LETTER_WORDS = frozenset({"id", "db", "io", "ui", "by", "to", "in", "on", "of", "at", "or"})


def _word(piece: str) -> bool:
    """Whether a piece after a name's digits is a word of code (`Async`, `KEY`, `Id`) or its
    `_`, not one letter, letters without a vowel or two letters that are no word (`X`, `Zq`,
    `Qa`): a random string's."""
    if piece == "_" or piece.lower() in TWO_LETTER_WORDS:
        return True
    return len(piece) >= 3 and any(c in "aeiouy" for c in piece.lower())


def _after_a_word(kept: list[str]) -> bool:
    """Whether a version stands after a word of the name (`passwordHashV2`, `db_password_v2`),
    not first nor after a single letter (`V0yarSecret`, `aV2`: a random string's)."""
    word = kept[-2] if kept[-1:] == ["_"] and len(kept) > 1 else (kept[-1] if kept else "")
    return len(word) >= 2
