"""Short passwords given to a person's password by name (pure): `password: hunter2`.

Every other value is judged from 8 characters on, by its entropy: a short one is a word, a
flag, a number or a name as often as a password. Given to a name whose last word is a
person's password (`password`, `passwd`, `pwd`, `pw`, `pass`, `passphrase`: signs.PERSONAL),
4 to 7 characters that mix letters and digits, or digits alone (`hunter2`, `abc123`, `s3cr3t`,
`123456`), and digits alone up to 12 (`12345678`, the commonest passwords after `123456`, had
no entropy enough), are one as written, whether YAML's, a `.env` file's or prose's: each was let
through. A word alone is not (`password: string`, a schema's type; `password: required`),
nor a placeholder, a reference or an algorithm (`pwd: sha256`), a test's verdict (`--- PASS:
Test1 (0.00s)`, `pass: test_1`: assignments.is_test_verdict, which a longer value passed; but
`PASS: hunter2`, a YAML key's, is one) or a
quantity, a number with its unit (a benchmark's `first pass: 500ms`, `pass: 16GB`, `0xFF`,
`21st`): each was refused. Nor is a technical name (`utf8`, `node18`, `mem2reg`, `0644`,
`8080`) or the value of a name that counts a password (`max_password: 1000`, `on_pass:
1234`): memidx.secrets.technical; nor a word of code and its version (`password = hashV2`,
`pwd: saltV3`), read as memidx.secrets.numbered_names reads a longer name."""

from __future__ import annotations

import re
from collections.abc import Iterator

from memidx.secrets.assignments import TEST_NAME, is_test_verdict
from memidx.secrets.held import ALGORITHM, pair_passwords
from memidx.secrets.identifiers import WORD
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.numbered_names import versioned_word
from memidx.secrets.signs import PERSONAL, personal
from memidx.secrets.technical import counted, technical
from memidx.secrets.values import PLACEHOLDER_WORDS, referred

# A name ending in such a word (its digits after it, `password2`, or a word that asks for it
# again, `password_confirm`: each let through), its assignment (`:`, `=`, Go's `:=`, PHP's and
# Perl's `=>`; not `==`), and a value of 4 to 7
# characters in the same quotes or none, ending its run (but for the closing quotes, brackets
# or sentence's end after it: inline code's `DB_PASSWORD=abc123`, JSON's `{"pw":"abc123"}`
# were let through), from a letter or a digit (not YAML's
# anchor or tag, `&id001`, `!Base64`) (group 1 the name, 2 its sign, 4 the value). Tried
# where a run of name characters with a `p` begins (each word holds one, and so does the
# name that asks for one again), its word looked for behind the run's end, by width.
SHORT_SHAPE = r"[A-Za-z0-9][A-Za-z0-9!@#$%^&*+=?_.-]{3,6}+|[0-9]{8,12}+"
SHORT_VALUE = lazy(SHORT_SHAPE)
SHORT = lazy(
    r"(?i)(?<![\w.-])(?=[\w.-]*?p)([\w.-]++(?:(?<=pw)|(?<=pwd|pw[0-9])|(?<=pass|pwd[0-9])"
    r"|(?<=pass[0-9]|again)|(?<=passwd|repeat|retype)|(?<=passwd[0-9]|confirm)|(?<=password)"
    r"|(?<=password[0-9])|(?<=passphrase)|(?<=confirmation)))"
    r"[\"']?+[ \t]*+(:=|=>|[:=])(?!=)"
    rf"[ \t]*+([\"'`]?+)({SHORT_SHAPE})\3"
    r"(?=[\"'`)\]}.!?]*+(?:[\s,;]|$))"
)
LETTER, DIGIT = lazy(r"[A-Za-z]"), lazy(r"[0-9]")
VERSION = lazy(r"[vV]?+[0-9]++(?:\.[0-9]++)++")  # `pw: v1.2.3`, a version's
# a number and its unit (time, size, rate, screen, ordinal, hour; `1h30m`), hex or exponent
QUANTITY = lazy(
    r"(?i)(?:[0-9]++(?:\.[0-9]++)?+(?:[mun\u00b5]?s|sec|min|hr?|[dwmyk]|[kmgtp]i?b?|px|r?em|pt|x"
    r"|[kmg]?hz|[fqr]ps|st|nd|rd|th|[ap]m))+|0x[0-9a-f]++|[0-9]++(?:\.[0-9]++)?+e[0-9]++"
)


def short_passwords(line: str) -> Iterator[tuple[int, int]]:
    """(start, end) in `line` of each short password given to a person's password (SHORT)."""
    for match in SHORT.finditer(line):
        name, value = match.group(1).rpartition(".")[2], match.group(4)
        if match[2] == ":" and _verdict(line, match, name, value):
            continue  # `--- PASS: Test1 (0.00s)`
        person = personal(name) or _joined(name) or _confirmed(name)
        if person and not counted(name) and _password_shaped(value):
            yield match.span(4)
    for at, end in pair_passwords(line):  # `auth=("admin", "hunter2")`
        if SHORT_VALUE.fullmatch(line, at, end) and _password_shaped(line[at:end]):
            yield at, end


def short_below(name: str, value: str) -> bool:
    """Whether `value`, a scalar on a line of its own below `name`'s YAML key (`password: |`
    over `  hunter2`, `>-`, or `password:` alone), is a short password given to it: read as
    on the key's line, `name: value` (below it every value was judged from 8 characters on,
    so `hunter2` went through there where `password: hunter2` was refused); in its quotes
    too (`password:` over `  "hunter2"`), as on the key's line, where they are no part of it."""
    line = f"{name}: {value}"
    quoted = int(len(value) > 2 and value[0] in "\"'" and value[-1] == value[0])
    return (len(name) + 2 + quoted, len(line) - quoted) in short_passwords(line)


# what marks a test's verdict around `PASS:` (Go's `--- PASS: Test1 (0.00s)`): a short value
# is too short to be judged random, and `PASS: hunter2` is a YAML key's password
GO_VERDICT = lazy(r"---[ \t]*+$")
DURATION = lazy(r"[ \t]++\([0-9.]++m?s\)")


def _verdict(line: str, match: re.Match[str], name: str, value: str) -> bool:
    """Whether `value` after `name:` is a test's verdict (assignments.is_test_verdict), a short
    one after `PASS:` only as a test's name or in Go's shape (GO_VERDICT, DURATION)."""
    if not is_test_verdict(name, value):
        return False
    if name != "PASS" or TEST_NAME.fullmatch(value):
        return True
    before = GO_VERDICT.search(line, 0, match.start())
    return before is not None or DURATION.match(line, match.end()) is not None


# the words that ask for a password again (`password_confirm`, `passwordAgain`)
AGAIN = frozenset({"confirm", "confirmation", "again", "repeat", "retype"})


def _confirmed(name: str) -> bool:
    """Whether `name` asks for a person's password again: `password_confirm`, `pwRepeat`."""
    words = [word.lower() for word in WORD.findall(name)]
    return len(words) >= 2 and words[-1] in AGAIN and words[-2] in PERSONAL


def _joined(name: str) -> bool:
    """A name one word with a person's password's long word at its end: `PGPASSWORD`,
    PostgreSQL's, `dbpassword` (let through: its one word is no PERSONAL's; `bypass` is none)."""
    return name.lower().endswith(("password", "passwd", "passphrase"))


def _password_shaped(value: str) -> bool:
    """Letters and digits, or digits alone; no placeholder, reference, version or algorithm."""
    if not DIGIT.search(value):
        return False
    if LETTER.search(value) is None and not value.isdigit():
        return False
    if VERSION.fullmatch(value) or QUANTITY.fullmatch(value) or technical(value):
        return False
    if versioned_word(value):
        return False  # `password = hashV2`: a name of code and its version, as `passwordHashV2`
    return not (PLACEHOLDER_WORDS.match(value) or referred(value) or ALGORITHM.match(value))
