"""A value that is the name of a variable holding a secret, not a secret (pure).

Code pasted into a note or a turn gives a secret-sounding key a variable, named after what it
holds: `fetch(url, {token: authToken})`, `{password: userPassword};`, `password = DB_PASSWORD`.
Mixed case and enough entropy, each was refused as a secret (a user cannot commit the snippet
without an allow marker). A value of letters only, in words split by case or `_`, one of them
a secret's (`auth`, `token`, `password`, `secret`, `key`...), is such a name when it is
written as code names a variable: from a small letter on (`authToken`, `auth_token`), or in
capitals (`DB_PASSWORD`). A passphrase of words without such a word (`correctHorseBattery`),
one from a capital on (`SuperSecret`, a password of a development setup) and any value with a
digit or a sign are judged as before."""

from __future__ import annotations

from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.members import random_letters

# a version at its end (`db_password_v2`, `DB_PASSWORD_V2`, `api-key-v3`) names the secret's
# version in a store: `{{ secret('db_password_v2') }}` was refused, the name judged as a secret
IDENTIFIER = lazy(
    r"[a-z][A-Za-z]*+(?:_[A-Za-z]++(?![0-9]))*+(?:_v[0-9]++)?+"
    r"|[A-Z]++(?:_[A-Z]++(?![0-9]))++(?:_V[0-9]++)?+"
)
# a word: a capital and small letters (`Token`), small letters, or capitals not followed by a
# small letter (`DB`, `AUTH` in `AUTHToken`)
WORD = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
SECRET_WORDS = frozenset(
    {
        "auth", "token", "tokens", "password", "passwords", "passwd", "pwd", "pw", "pass",
        "passphrase", "secret", "secrets", "key", "keys", "apikey", "credential",
        "credentials", "cred", "creds",
    }
)  # fmt: skip


# A secret's name as a store keys it: words in small letters joined by `-` or `_`, parts
# joined by `/`, a part of digits alone (`prod/db-password`, Google's
# `projects/acme/secrets/api-key/versions/3`): `storeSecret("prod/db-password", value)` was
# refused, the name judged as the secret
STORE_NAME = lazy(
    r"(?:[a-z]++(?:[-_][a-z]++(?![0-9]))*+(?:[-_]v[0-9]++)?+|[0-9]++)"
    r"(?:/(?:[a-z]++(?:[-_][a-z]++(?![0-9]))*+(?:[-_]v[0-9]++)?+|[0-9]++))*+"
)
PARTS = lazy(r"[a-z]++")


def names_a_secret(value: str) -> bool:
    """Whether `value` is a variable's name of two words or more, one naming a secret
    (`authToken`, `DB_PASSWORD`, `client_secret`), as code assigns one to a secret's key, or a
    secret's name in a store (STORE_NAME: `prod/db-password`, `api-key`); a private field's
    name of one word too, after its `_` (C#'s `Password => _password;`, `this._token`)."""
    field = value.lstrip("_")
    if IDENTIFIER.fullmatch(field) is None:
        if field != value or not (STORE_NAME.fullmatch(value) and ("-" in value or "/" in value)):
            return False
        words = PARTS.findall(value)
    elif random_letters(field, acronyms=True):
        return False  # `bPxRfiCYzqWmTLKeyQxv`: its case cuts out a `Key`, and no other word
    else:
        words = WORD.findall(field)
    least = 1 if field != value else 2  # `_password` was judged, a property's body in C#
    return len(words) >= least and any(word.lower() in SECRET_WORDS for word in words)


# A condition, as a filter or a query writes one: a name of code in small letters given a
# flag, a number or a word (`is_expired=true`, `retries>=3`, `status=active`):
# `filter=credentials%3Ais_expired%3Dtrue` was refused, the condition judged as the secret.
# After a `:` a word only after a name of two words (`is_expired:true`, `rotation.enabled:no`):
# `admin:hunter` is a user and a password, as `credentials:` and `curl -u` give them
FLAG = r"(?:true|false|null|none|yes|no|[0-9]++)"
CONDITION = lazy(
    r"[a-z][a-z0-9]*+(?:[_.][a-z][a-z0-9]*+)*+(?:[=!<>]=|[=<>])(?:[0-9]++|[a-z]++)"
    rf"|[a-z][a-z0-9]*+:{FLAG}|[a-z][a-z0-9]*+(?:[_.][a-z][a-z0-9]*+)++:[a-z]++"
)


# A flag's name: a name of code whose first word asks a question (`is_expired`, `hasToken`), as
# a filter names the field it tests (`filter=password%3Ais_expired` was refused)
FLAG_WORDS = frozenset({"is", "has", "can", "should", "was", "did", "does", "needs", "must"})
# each word after it a word (a vowel) or an acronym (`isHTTPS`); a random string's letters
# split into no words (`isQzkvTwpLmxRb`, `wasHJKQWPZmx` were let through as flags' names)
FLAG_WORD = lazy(r"(?i:.*[aeiouy].*)|[A-Z]{1,5}")


def condition(value: str) -> bool:
    """Whether `value` is a condition (CONDITION) or a flag's name (FLAG_WORDS), no secret."""
    if CONDITION.fullmatch(value) is not None:
        return True
    words = WORD.findall(value) if IDENTIFIER.fullmatch(value) else []
    return (
        len(words) >= 2
        and words[0] in FLAG_WORDS
        and all(FLAG_WORD.fullmatch(word) for word in words[1:])
    )
