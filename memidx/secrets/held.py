"""The strings a secret-sounding name is called with (`setPassword("v4lue")`) and the items
of a list or a tuple it is given (`password=["v4lue"]`, `auth=("user", "v4lue")`), which the
library's rules skip (pure)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from memidx.secrets.dashed_names import AUTH_NAME_WORDS, dashed_name
from memidx.secrets.identifiers import WORD
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.members import NAME_WORD
from memidx.secrets.signs import personal

# A secret-sounding name called with strings (`setPassword("v4lue")`, `.withToken('v4lue')`:
# the library reads `password("v4lue")` in small letters and double quotes only) or given a
# list (`password=["v4lue"]`, `Set password: [v4lue] now`: the library's value starts with a
# word character, and memidx read a flow collection only on its key's line alone) or a tuple
# (`auth=("user", "v4lue")`, requests'); group 2 the call's `(`, group 3 the list's `[` or the
# tuple's `(`. Tried only where a run of name characters begins.
HOLDING = lazy(r"(?<![\w.-])([\w.-]++)[\"']?+[ \t]*+(?:(\()|(?::=|=>|[:=])[ \t]*+([\[(]))")
# Each item and the `,` or closing bracket after it: a quoted string (group 2) or, in a
# list, a plain scalar (group 3); an item of any other shape (`f(x + 1)`) ends the reading.
HELD_ITEM = lazy(r"[ \t]*+(?:([\"'`])([^\"'`\n]*+)\1|([^\s,\[\](){}\"'`]++))[ \t]*+([,\])])")
# The last word of a name that holds a secret (`password`, `apiKey`, `tokens`), the words a
# key needs before it (`ApiKey`: a `sortKey`, a `primaryKey` is none), and the first words of
# a call that gives one (`setPassword`, `withToken`, `check_password`, `hashPassword`, as the
# library reads `hash_password`; `hashPassword("v4lue")` was let through): a call's name of other
# words reads, parses or makes something else (`getPassword("alice@example.com")`,
# `splitpasswd("user:pw")`, `impliedTagToken("html", "StartTag")`, `TokenType("NAME")`).
HELD_WORDS = frozenset(
    {"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "credential"}
)
# a type that wraps a secret's string (`SecretStr("v4lue")`, pydantic's; `SecretString`,
# `PasswordBytes`): its last word is the type's, the word before it the secret's
WRAPPERS = frozenset({"str", "string", "bytes"})
KEY_KINDS = frozenset({"api", "secret", "private", "access", "auth", "client", "signing"})
GIVING = frozenset(
    {"set", "with", "use", "put", "update", "change", "add", "check", "verify", "hash", "encrypt",
     "compare", "validate", "store", "save", "encode"}
)  # fmt: skip


def held_values(
    line: str, secret_word: Callable[[str], bool], method: Callable[[str, str], bool]
) -> Iterator[str]:
    """The strings a secret-sounding name is called with and the items of the list it is
    given (see HOLDING), in order; not a method's name given to `auth` (`method(name, value)`:
    `auth=["AWS4-HMAC-SHA256"]` was refused, where `auth: AWS4-HMAC-SHA256` was not), but for
    the password of a user's name and a password (`auth=("admin", "Mango-Tiger-17")` was let
    through as a method's name)."""
    match = HOLDING.search(line)
    while match:
        at, name = match.end(), match.group(1).rpartition(".")[2]
        pair = _user_and_password(name)
        if pair or _holds_a_secret(name, called=bool(match.group(2))):
            person = personal(name)
            # a user's or a host's name first (`setCredentials("bob@example.com", "v4lue")`)
            user = pair or (
                bool(match.group(2)) and name.lower().endswith(("credential", "credentials"))
            )
            later = False  # an argument after the first: an algorithm may be given there
            # a pair's password (its second item in parentheses, or in a list given to a name
            # of more words, `http_auth=[...]`) is a method's name only in capitals
            # (CAPITALS); no item after a user's name, no method's, is one
            listed = match.group(3) == "[" and len(WORD.findall(name)) == 1
            password_at, index, methods = (1 if pair and not listed else -1), 0, True
            while item := HELD_ITEM.match(line, at):
                value = item.group(2) if item.group(2) is not None else item.group(3)
                shaped = item.group(2) is not None or match.group(3) == "["  # `(user, pw)`: names
                named = user and item.group(4) == "," and ANOTHER.match(line, item.end())
                named = named and not _key_as_user(line, item.end(), value)
                given = methods and method(name, value)
                methods = bool(given)
                given = given and (index != password_at or CAPITALS.fullmatch(value) is not None)
                algorithm = (later and ALGORITHM.match(value)) or given
                shaped = shaped and (
                    VALUE_SHAPE.search(value) or _passphrase(value, person, index == password_at)
                )
                if shaped and not named and not algorithm:
                    yield value
                user, later = False, bool(match.group(2))
                at, index = item.end(), index + 1
                if item.group(4) != ",":
                    break
        match = HOLDING.search(line, max(at, match.end()))


def _passphrase(value: str, person: bool, paired: bool) -> bool:
    """Whether `value`, letters and `-` beside digits or none, is a passphrase: a pair's
    password of words (PAIR_PASSPHRASE), a person's password of capitalised words, or
    PASSPHRASE's shape anywhere."""
    if paired and PAIR_PASSPHRASE.fullmatch(value):
        return True
    return bool((person and WORDS_PASSPHRASE.fullmatch(value)) or PASSPHRASE.fullmatch(value))


# A method's name in capitals and digits, words joined by `-` (`AWS4-HMAC-SHA256`): in a pair's
# password's place, the only method's name; a password's words are not (`Mango-Tiger-17`)
CAPITALS = lazy(r"[A-Z]++[0-9]*+(?:-[A-Z]++[0-9]*+)++")


# The user's name is first only when another argument follows, a literal of no value aside
# (`setCredentials("v4lue",)`, `setCredentials("v4lue", null)`, `(..., 3600)` were let through)
ANOTHER = lazy(
    r"[ \t]*+(?!(?:null|nil|undefined|None|NULL|nullptr|true|false|True|False|[0-9.]++)"
    r"[ \t]*+[,)])[^\s,)]"
)
# An API key given as the user, its password empty or one character (`auth=("v4lue", "")`,
# Freshdesk's `"X"`: let through as a user's name): 16 characters or more, no `@`, letters
# between digits that are no word (`Zq8vT2mW9pLqXk7`; not `admin@example.com`, `ci_user_42`)
NO_PASSWORD = lazy(r",[ \t]*+([\"'`])[^\"'`]?+\1[ \t]*+[,)]")
BETWEEN_DIGITS = lazy(r"(?<=[0-9])[A-Za-z]++(?=[0-9])")


def _key_as_user(line: str, at: int, value: str) -> bool:
    """Whether `value`, a user's place ending at `at`, is an API key (NO_PASSWORD after it)."""
    if len(value) < 16 or "@" in value or NO_PASSWORD.match(line, at - 1) is None:
        return False
    return any(not NAME_WORD.fullmatch(run[0]) for run in BETWEEN_DIGITS.finditer(value))


# An item that may be a secret: no space (`"Invalid token"` is a message), and a digit or a
# sign beside letters (`"StartTag"`, `'NAMED_OPERATOR'`, `"basic_test_realm"` are names).
VALUE_SHAPE = lazy(r"^(?=\S*$)(?=.*[^A-Za-z_-])")
# A passphrase: capitalised words and a number joined by `-`, two words at least (`Mango-Tiger-17`):
# no name's shape nor a method's (`OAuth2-PKCE`, `AWS4-HMAC-SHA256`, `scram-sha-256`), and let
# through given to `auth` or in a list; without a number it is a header's or a grant's name as
# often (`Access-Control-Allow-Origin`, `Resource-Owner-Password`), but given to a person's
# password (WORDS_PASSPHRASE: `setPassword("Correct-Horse-Battery-Staple")`, let through)
PASSPHRASE = lazy(
    r"(?=[\w-]*?[A-Z][a-z]{2,}+-(?:[0-9]++-)*+[A-Z][a-z]{2,}+)(?=[\w-]*?(?<![^-])[0-9]++(?![^-]))"
    r"(?:[A-Z][a-z]{2,}+|[0-9]++)(?:-(?:[A-Z][a-z]{2,}+|[0-9]++)){2,}+"
)
WORDS_PASSPHRASE = lazy(r"[A-Z][a-z]{2,}+(?:-[A-Z][a-z]{2,}+){2,}+")
# in a pair's password place, three words or more: two are a mode's or a note's (`read-only`,
# `from-env`: `auth=("bob", "read-only")` was refused)
PAIR_PASSPHRASE = lazy(r"[A-Za-z]++(?:-[A-Za-z]++){2,}+")
# Given to `auth` alone, four words of letters or more joined by `-`, capitalised or not
# (`Correct-Horse-Battery-Staple`, `correct-horse-battery-staple`: let through as a method's
# name) are a passphrase; a method's or a grant's name has fewer (`Client-Credentials`,
# `Resource-Owner-Password`) or mostly a cloud's terms (dashed_names: `azure-active-directory-
# default`, refused for its `default`); with a number, a directory's or
# a server's name and version only (`Active-Directory-2019`, `Windows-Server-2022`, DIRECTORY_
# WORDS) is no passphrase of two words and a number: any name's words (`Password-Token-2024`,
# `Service-Account-2024`, `Active-Directory-Password-2019`) were let through so
WORDS_ALONE = lazy(r"[A-Za-z]{3,}+(?:-[A-Za-z]{3,}+){3,}+")
DIRECTORY_WORDS = frozenset(
    {"active", "directory", "windows", "server", "azure", "entra", "federation", "services",
     "ldap", "google", "workspace", "okta"}
)  # fmt: skip
LETTER_RUN = lazy(r"[A-Za-z]++")


def auth_passphrase(value: str) -> bool:
    """Whether `value`, given to `auth` alone, is a passphrase (PASSPHRASE, WORDS_ALONE), not
    a method's, a grant's or a directory's name."""
    words = [word.lower() for word in LETTER_RUN.findall(value)]
    numbered = PASSPHRASE.fullmatch(value) is not None
    names = DIRECTORY_WORDS if numbered else AUTH_NAME_WORDS
    if words and all(word in names for word in words):
        return False
    return numbered or (WORDS_ALONE.fullmatch(value) is not None and not dashed_name(value))


# An algorithm a call that hashes or encrypts is given after the secret (`"aes-256-gcm"`,
# `"AES/GCM/NoPadding"`, `"sha256"`, `"HS256"`): each was refused as a password; a word after
# its digits is a password's (`"Des1gner2024"`, `"Sha256pass"`)
ALGORITHM = lazy(
    r"(?:aes|des|3des|rsa|sha|md5|hmac|bcrypt|scrypt|argon2|pbkdf2|chacha|blowfish|[hrep]s(?=\d))"
    r"[0-9]*+(?:[-_/][a-z0-9]++)*+$",
    re.IGNORECASE,
)


# An HTTP client's authentication, a user's name and a password: requests' `auth=("user",
# "v4lue")`, `HTTPBasicAuth("user", "v4lue")`, `HTTPDigestAuth`, aiohttp's `BasicAuth`, httpx's
# `auth=`, a `basic_auth=` tuple (all let through: no word of HELD_WORDS)
PAIR_WORDS = frozenset({"http", "basic", "digest", "proxy"})


def _user_and_password(name: str) -> bool:
    """Whether `name` is given a user's name and a password (PAIR_WORDS)."""
    words = [word.lower() for word in WORD.findall(name)]
    return words[-1:] == ["auth"] and all(word in PAIR_WORDS for word in words[:-1])


def pair_passwords(line: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the password of each quoted user's name and password an HTTP client's
    authentication is given (`auth=("admin", "hunter2")`, `HTTPBasicAuth("u", "abc123")`),
    whatever its length: held_values' items are judged from 8 characters on."""
    if "auth" not in line.lower():
        return
    for match in HOLDING.finditer(line):
        if not _user_and_password(match.group(1).rpartition(".")[2]):
            continue
        user = HELD_ITEM.match(line, match.end())
        if user is None or user.group(2) is None or user.group(4) != ",":
            continue
        password = HELD_ITEM.match(line, user.end())
        if password is not None and password.group(2) is not None:
            yield password.span(2)


def _holds_a_secret(name: str, *, called: bool) -> bool:
    """Whether a list given to `name` holds secrets, or (`called`) a call of it is given
    one (see HELD_WORDS): not a lexer's `tokens = [...]`, its token kinds' names."""
    words = [word.lower() for word in WORD.findall(name)]
    if not words or (not called and name == "tokens"):
        return False
    if called and len(words) >= 2 and words[-1] in WRAPPERS:
        words = words[:-1]  # `SecretStr(...)` gives what `Secret(...)` does
    last = words[-1].removesuffix("s") if not called or words[-1] == "credentials" else words[-1]
    before = words[:-1]
    if last == "key" and before and before[-1] in KEY_KINDS:
        before = before[:-1]
    elif last not in HELD_WORDS:
        return False
    return not called or not before or (len(before) == 1 and before[0] in GIVING)
