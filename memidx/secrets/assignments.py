"""The values assigned to the names memidx adds to the library's list (`GITHUB_TOKEN=...`,
`credentials: ...`), and for every secret-sounding name the values the library's rules skip:
those starting with a sign, those after a space and a `:` (`{ password : v4lue }`), the
strings it is called with and the items of a list it is given (pure): each is judged as
every assigned value is."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from memidx.secrets.arrows import arrow_value, match_arm
from memidx.secrets.candidates import LEADING_PW, WorthReading
from memidx.secrets.held import auth_passphrase, held_values
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.linear import next_name, opened_by_name
from memidx.secrets.members import NAME_WORD, random_letters
from memidx.secrets.negation import negation
from memidx.secrets.signs import SIGNS, no_password, personal, selector
from memidx.secrets.weak import common_password

# Names the library's keyword list lacks: `GITHUB_TOKEN=...`, `credentials: ...`, `SMTP_PASS=...`,
# `x-api-key: ...`, `private-key:` (HTTP's, Helm's and HTML's spelling; the library reads
# `api_key`, `apikey`), Azure's `Ocp-Apim-Subscription-Key:`; `pass`, `pw` and `auth` as a
# name's word (JSON's `"pass":`, `login_pw=`, `auth=`, `basic_auth=`; not `bypass`, `oauth`,
# `pass_through`, nor `pwd`, the shell's working directory), `pw` or `pass` first in a name
# asking for a password again (candidates.LEADING_PW: `pwConfirm`), a digit after `pass` or `pw`
# (`pw1=`, `PASS2:`, let through; not `auth0`), camelCase's too (`loginPw`,
# `basicAuth`: a small letter before; not `bypass`, `oauth`, `BASICAUTH`)
# (a name: a run of `[\w.-]` whose part after its last dot holds one of these words).
EXTRA_WORDS = lazy(
    r"(?i)token|credential|access[_-]?key|secret[_-]?key|(?:api|private)-key|subscription[_-]?key"
    r"|passphrase"
    r"|(?<![A-Za-z0-9])(?:pass[0-9]?+|pw[0-9]?+|auth)\b"
    rf"|{LEADING_PW}"
    r"|(?-i:(?<=[a-z])(?:Pw[0-9]?+|Pass[0-9]?+|Auth)\b)"
)
# A run of name characters, then an assignment; VALUE its value (group 1), read only after a
# name that holds a word. Tried only where a run begins and never backing into it: the one
# expression of word, prefix and suffix read each way of splitting a run around a word, cubic
# in the run (`tokentoken...token=`: 1.8 s for 1 KB, minutes for 8 KB); and a value read after
# each name, a word or not, read `a:a:a:...` to its end from each (3 s for 64 KB).
# (EXTRA_ASSIGNED, in memidx.secrets.candidates: only the names worth reading are found)
VALUE = lazy(r"\s*[\"'`]?([^\s\"'`,;]+)")
# the same within a run read once as no value (see SIGN_LED_LONG): at most 200 characters,
# to the run's end or an `&` (a query string's next pair, `&password=`, cut off by _cut)
VALUE_IN_RUN = lazy(r"\s*[\"'`]?([^\s\"'`,;]{1,200})(?![^\s\"'`,;&])")
# a query pair's value after a secret-sounding name's pair (linear.opened_by_name), its
# base64 padding too; one a `=` goes on from is another assignment (`&b=token=!a`), judged
# as its own (group 2: what follows the `=`)
PAIR_VALUE = lazy(r"([^\s\"'`,;&=]{1,200}+=*+)(?=([^\s\"'`,;&]?+))")
# A quoted value that starts with a sign, which the library's rules read as no value (theirs
# must start with a word character): `password = "#Xk9..."` was let through. Not `$`, `%`,
# `*`, `-`, `.`, `^`, `~`, `/`: a variable, a glob, an option, a file, a version.
SIGN_LED = lazy(r"[ \t]*+[\"'`]([!#&+?@|=:;,\\][^\s\"'`]*+)[\"'`]")
# The same value unquoted (`PASSWORD=!Zq8...` in a `.env` file; group 1), but for a comment
# (`#` after a space). After `:` YAML's signs lead no value: an alias (`*`, no sign here), a
# block (`|`), and an anchor or a tag (`&default`, `!vault`, `!Ref Db`) when a value follows
# it on its line or its name has YAML_NAME's shape; nor does a scope's `::`
# (`AWS::SecretsManager::RotationSchedule`). Not `;` nor `,`, which end a shell's or a
# list's value. Read to the end of its run after every name, `password:!password:!...` took
# 20 s for 100 KB: a run over 200 characters (SIGN_LED_LONG, a value as any other: missed, a
# 300-character `PASSWORD=!<token>` went through) is read once: when it is no value, the
# names in it are read again only as they were before, up to 200 characters each
# (`token=!token=!...` took 30 s for 100 KB so; skipping the run's names instead let
# `url=https://<200 characters>&GITHUB_TOKEN=v4lue` through).
SIGN_LED_BARE = lazy(r"[ \t]*+([!#&+?@|=:\\][^\s\"'`]{0,200}+)(?![^\s\"'`])")
SIGN_LED_LONG = lazy(r"[ \t]*+([!#&+?@|=:\\][^\s\"'`]{200}[^\s\"'`]++)")
SIGN_LED_IN_RUN = lazy(r"[ \t]*+([!#&+?@|=:\\][^\s\"'`]{0,200})(?![^\s\"'`,;&])")
# an anchor's or a tag's name: letters, `_`, `.`, `-`, `:`, `/` (`!!binary`, `&db_defaults`,
# `!GetAtt`), or PyYAML's `&id001`; a password has digits (`!Welcome2024`, `&hunter22`,
# `!Zq8vT2mW9pL`): 8,547 YAML files on a developer's machine hold 23 names of anchors alone
# after a key, none with a digit but `&id001`
YAML_NAME = lazy(r"!?[A-Za-z_][A-Za-z_.:/-]*+|id[0-9]++")
TAGGED = lazy(r"[ \t]++[^\s#]")  # a value after an anchor or a tag, on its line
YAML_NO_VALUE = lazy(r"[ \t]*+[|:]")  # a block scalar's `|` or a second `:`: none
# a quoted string after a tag that keeps a literal (CloudFormation's `!Sub 'v4lue'`,
# `!Base64`, Ansible's `!unsafe`) is the key's value, let through as the tag's before; other
# tags are given a name (`!Ref 'DbSecret'`, `!ImportValue`, Home Assistant's `!secret db_pw`)
LITERAL_TAGS = frozenset({"!Sub", "!Base64", "!unsafe", "!str"})
TAG_LITERAL = lazy(r"[ \t]++[\"']?+([^\s\"']++)[\"']?+(?=[ \t]*+(?:#|$))")
# an anchor, or a tag that keeps its value as written: the value after it is the key's
# (`password: &pw Zq8vT2mW9pL`), both in either order (`!!str &pw v4lue` was let through);
# after another tag (`!Ref DbSecret`) it is the tag's. A sign after them is read as after the
# key (`&pw !Zq8vT2mW9pL` was let through as an anchor before a tag; `&pw !vault |` is one)
ANCHORED = lazy(r"(?:(?:&[^\s\"'`]{1,200}+|!!str)[ \t]++)++(?=[^\s#*|>])")


# A run of names each given a plain value of letters, digits and `_` shorter than any value
# judged (looks_secret: 8 characters) and ended by a space or a tab, each name after a space
# (none after an `&`, a query pair's) and before no assignment (`a=pw =v4lue`: `pw` a name):
# no branch below gives such a value, nor cuts it, and a line of them (`pw=1 ` to 1 MB,
# 209,715 names) was read one Python step a name (0.86 s a MB)
SHORT_PLAIN = lazy(r"(?<![\w.&-])(?:[\w.-]++[:=][A-Za-z0-9_]{1,7}+(?!\s*+[:=])[ \t]++)++")


def extra_keyword_values(line: str, secret_word: Callable[[str], bool]) -> Iterator[str]:
    """The values assigned to the names EXTRA_WORDS makes secret-sounding, and the values
    starting with a sign (SIGN_LED, SIGN_LED_BARE) or bare after `=>` (arrows) given to any
    secret-sounding name, in order; then the strings and items held_values reads."""
    names = WorthReading(line)
    match, long_until = _first(names, line, 0), 0
    kinds: dict[str, tuple[bool, bool]] = {}  # each name's words read once (a long run repeats)
    while match:
        start, end = match.span(1)
        last = line.rfind(".", start, end) + 1 or start  # the word is after the name's last dot
        name, value = line[last:end], None
        extra, secret = kinds.get(name) or _words_of(name, secret_word, kinds)
        if extra:
            # `:=` or `=>` with no value after it is `:` or `=` with one that starts `=`, `>`
            reading = VALUE if match.end() >= long_until else VALUE_IN_RUN
            value = reading.match(line, match.end())
            if value is None and line[match.end() - 2 : match.end()] in (":=", "=>"):
                value = reading.match(line, match.end() - 1)
            value, long_until = _cut(line, value, secret_word, long_until)
            said, arm = line[match.end() - 1], match_arm(line, start, match.end())  # `:`, `=`
            if value and (
                auth_method(name, value[1])
                or (said == ":" and is_test_verdict(name, value[1]))
                or (arm and value.start(1) >= match.end())  # `Kind.Token => TokenCredential2`
            ):
                value = None  # a method's name given to `auth`, a test's to `pass`, an arm's body
        elif secret:
            if line[match.end() - 1] == ":" and line[match.end() - 2].isspace():
                value = VALUE.match(line, match.end())  # `{ password : v4lue }`
            else:
                at = match.end()
                value = SIGN_LED.match(line, at) or _bare_sign_led(line, at, long_until)
                value = value or _dash_led(line, at) or arrow_value(line, at, start)
            value, long_until = _cut(line, value, secret_word, long_until)
            person = personal(name)  # a person's password names no package (PERSONAL)
            if value and (no_password(value[1], person=person) or selector(name, value[1])):
                long_until, value = (
                    max(long_until, value.end()),
                    None,
                )  # its run is read once (SIGN_LED_LONG)
        elif line[start - 1 : start] == "&" and opened_by_name(line, start - 1, secret_word):
            value = PAIR_VALUE.match(line, match.end())  # `secret=ab&cd=<value>`: judged too
            value = None if value and value[1][-1] == "=" and value[2] else value
        # a sign-led path, entity, filter or field's name, or code's negation, after any
        # secret-sounding name (`token: "@octokit/auth-token"` was refused where
        # `secret: "@azure/identity"` was not)
        led = value is not None and value[1][0] in SIGNS
        if (
            led
            and value
            and (no_password(value[1], person=personal(name)) or negation(line, start, end, value))
        ):
            long_until, value = max(long_until, value.end()), None
        if value:
            yield value.group(1)
            match = _first(names, line, value.end())
        else:  # what the old expression took for a value may hold a name
            match = _first(names, line, end)
    yield from held_values(line, secret_word, auth_method)


def _first(names: WorthReading, line: str, at: int) -> re.Match[str] | None:
    """The first name worth reading from `at` on, past the runs of SHORT_PLAIN."""
    match = names.first(at)
    while match and (short := SHORT_PLAIN.match(line, match.start())):
        match = names.first(short.end())  # `pw=1 pw=1 ...`: no value any name gives
    return match


def _words_of(
    name: str, secret_word: Callable[[str], bool], kinds: dict[str, tuple[bool, bool]]
) -> tuple[bool, bool]:
    """Whether `name` holds one of EXTRA_WORDS, and whether `secret_word` says it is
    secret-sounding; kept in `kinds` for a short name (KINDS_KEPT names at most)."""
    words = (EXTRA_WORDS.search(name) is not None, secret_word(name))
    if len(kinds) < KINDS_KEPT and len(name) <= 256:
        kinds[name] = words
    return words


KINDS_KEPT = 4096


def _cut(
    line: str, value: re.Match[str] | None, secret_word: Callable[[str], bool], until: int
) -> tuple[re.Match[str] | None, int]:
    """An unquoted value read again up to where a secret-sounding name is given a value after
    a `,`, `;` or `&` (next_name), as the library's values are: `token=!a&password=!Zq8...`
    was judged as one value, `password=&lt;&token=!Zq8...` as an entity, and let through.
    Its run is then read once (`until`: the values after the cut are read within the run)."""
    if value is None or not value[1] or line[value.start(1) - 1] in "\"'`":
        return value, until
    cut = next_name(line, value.start(1) + 1, value.end(1), secret_word)
    if cut is None:
        return value, until
    again = SIGN_LED_BARE if value.re is SIGN_LED_LONG else value.re
    return again.match(line, value.pos, cut), max(until, value.end())


# `auth` alone names a method as often as a credential: given a method's name, words joined by
# `-`, each letters with digits at their end or none (`initdb --auth=scram-sha-256`,
# `--auth-host=md5`, `auth: hmac-sha256`, `AWS4-HMAC-SHA256`, `us-east-1`, `OAuth2-PKCE`:
# refused since `auth` was read), it is no value; a random part, a token, base64 or
# `user:password` is
METHOD_PART = r"(?:[A-Za-z]++[0-9]*+[a-z]{0,2}+|[0-9]++)"
METHOD = lazy(rf"{METHOD_PART}(?:-{METHOD_PART})++")


def _extra_words(name: str) -> frozenset[str]:
    """The words of EXTRA_WORDS in `name`, in small letters, a number after one left off
    (`pass1` is `pass`); a short name's kept (`pw=1 ` repeated asked 200,000 times)."""
    return _kept_words(name) if len(name) <= 256 else _words_in(name)


def _words_in(name: str) -> frozenset[str]:
    return frozenset(word[0].lower().rstrip("0123456789") for word in EXTRA_WORDS.finditer(name))


_kept_words = lru_cache(maxsize=4096)(_words_in)
AUTH_ONLY, PASS_ONLY = frozenset({"auth"}), frozenset({"pass"})


def auth_method(name: str, value: str) -> bool:
    """Whether `value` given to `name`, whose only secret word is `auth`, is a method's name."""
    if _extra_words(name) != AUTH_ONLY or auth_passphrase(value):
        return False  # `auth=Mango-Tiger-17`: a passphrase, let through as a method's name
    if METHOD.fullmatch(value) is None or random_run(value):
        return False
    return not any(random_letters(part.rstrip("0123456789")) for part in value.split("-"))


# `pass` alone, in capitals, before a `:` is a test's verdict (Go's `--- PASS: TestLogin2
# (0.00s)`, `PASS: tests/test_auth.py`), and so is `pass:` given a test's name (`pass:
# test_login_flow2`): each refused since `pass` was read; a random value after `PASS:` is
# still judged, and any after `PASS=` (a `.env` file's password)
TEST_NAME = lazy(r"(?:[\w.-]*+/)*+(?:[Tt]est|TEST)[\w./:\[\]-]*+")


def is_test_verdict(name: str, value: str) -> bool:
    """Whether `value` given to `name`, whose only secret word is `pass`, is a test's."""
    if _extra_words(name) != PASS_ONLY:
        return False
    if name == "PASS":
        return not (random_run(value) or random_letters(value))
    return TEST_NAME.fullmatch(value) is not None


# A value led by `-` is an option's (`--password-stdin`, `-Xmx512m`), which the library's rules
# skip, but for one of the commonest passwords after it or a random string's letters between
# digits (`password = -letmein`, `-Zq8vT2mW9pLq`: each was let through)
DASH_LED = lazy(r"[ \t]*+[\"'`]?+(-[^\s\"'`,;]++)")


def _dash_led(line: str, at: int) -> re.Match[str] | None:
    """The value led by `-` after the assignment that ends at `at`, when no option's."""
    led = DASH_LED.match(line, at)
    if led is None:
        return None
    random = random_run(led[1]) or random_letters(led[1].lstrip("-"))
    return led if common_password(led[1]) or random else None


BETWEEN_DIGITS = lazy(r"(?<=[0-9])[A-Za-z]++(?=[0-9])")


def random_run(value: str) -> bool:
    """Whether `value` holds letters between digits that are no word (`8vT2`, not `1beta1`:
    `password=-v1beta1`, an API version's option, was refused)."""
    return any(not NAME_WORD.fullmatch(run[0]) for run in BETWEEN_DIGITS.finditer(value))


def _bare_sign_led(line: str, at: int, until: int = 0) -> re.Match[str] | None:
    """The unquoted value starting with a sign after the assignment that ends at `at` (group
    1), unless it is a comment or YAML reads its sign as no value's (see SIGN_LED_BARE); one
    over 200 characters only past `until`, the end of a run read once (SIGN_LED_LONG)."""
    if line[at - 1] == ":" and YAML_NO_VALUE.match(line, at):
        return None  # before SIGN_LED_LONG reads the run: `password:|` repeated, quadratic
    rest = SIGN_LED_LONG if at >= until else SIGN_LED_IN_RUN
    # a value read before (its closing quote at most after it) holds the 202 characters from
    # `at` on: no value of 200 ends there, and reading one to fail cost 200 characters a name
    bare = None if at + 202 < until else SIGN_LED_BARE.match(line, at)
    bare = bare or rest.match(line, at)
    if bare is None or (bare[1][0] == "#" and bare.start(1) > at):
        return None  # `PASSWORD= # a comment`
    if line[at - 1] != ":" or bare[1][0] not in "|!&:":
        return bare
    if anchored := ANCHORED.match(line, bare.start(1)):
        after = SIGN_LED_BARE.match(line, anchored.end())
        if after is None or after[1][0] not in "!&":
            return VALUE.match(line, anchored.end())  # `&pw v4lue`: the value after the anchor
        bare = after  # `&pw !Zq8vT2mW9pL`: judged as the sign after the key is
    if bare[1] in LITERAL_TAGS and (literal := TAG_LITERAL.match(line, bare.end())):
        return literal  # `!Sub 'v4lue'`: the string the tag is given
    if bare[1][0] in "|:" or YAML_NAME.fullmatch(bare[1], 1) or TAGGED.match(line, bare.end()):
        return None
    return bare
