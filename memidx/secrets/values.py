"""Whether a value found after a secret-sounding name, in a URL, on a command line or in a
`.netrc` entry is a secret: not a placeholder, no reference to something else, mixed enough
characters and entropy (pure)."""

from __future__ import annotations

from collections.abc import Callable

from memidx.private import PRIVATE_STAND_IN
from memidx.secrets.calls import password_call
from memidx.secrets.dashed_names import dashed_name
from memidx.secrets.identifiers import condition, names_a_secret
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.members import MEMBER, named_member
from memidx.secrets.numbered_names import numbered_name
from memidx.secrets.technical import technical, vault_parts
from memidx.secrets.templates import literal_parts
from memidx.secrets.weak import common_password

PLACEHOLDER_WORDS = lazy(
    r"(?i)^(?:x+|\*+|(?:x{3,}|\*{3,})[0-9]{1,4}|\.+|-+|changeme|change[_-]?me|pass(?:word)?\d*|passwd|pwd|secret|example\w*|sample\w*|"
    r"dummy\w*|placeholder\w*|redacted|none|null|true|false|undefined|todo|tbd|fixme|"
    r"your[\w-]*|my[_-]?(?:password|secret|token|key)\w*|[\w-]*[_-]here|test(?:ing)?)$"
)
# A note's span as the index holds it (PRIVATE_STAND_IN, shown as `[REDACTED:private]`) is a
# reference, as that marker is by its brackets: read as a URL's password, a hit's snippet showed
# `postgres[REDACTED:basic-auth]db` for `postgres://app:<private>pw</private>@db`. Only a value
# that is nothing else: one holding a `␡` among other characters is a password that has it.
# An Android resource (`@string/maps_key`, `@android:string/ok`) names the value it stands for.
# A parenthesis makes a reference of a call (`os.getenv("X")`, `env::var(X)`, `getpass()`, or its
# start: `Password.create(`) or of a value in parentheses, not a password's (`P@ss(w0rd)`).
# A format's `%s`, `%d` or `%(name)s` ends its piece (`%s:%s@db`): a `%s` before a letter or a
# digit is a password's (`wibw891LIW%scQH` was let through, the labeled set's one miss), as
# `%de` is an encoded byte.
REFERENCE = lazy(
    r"[\[\]{}<>]|^[A-Za-z_$][\w.:$-]*+\(|^\("
    r"|\$\{|^\$|%[sd](?![A-Za-z0-9])|%\(|^(?:/|\./|~|https?:)"
    + r"|^[A-Za-z]:\\(?:[\w .-]+\\)*[\w .-]+$"  # a Windows path, `C:\secrets\pw.txt`
    + f"|^(?:{PRIVATE_STAND_IN}\ufe0e?)+$"
    + r"|^@(?:\w+:)?(?:string|xml|raw|array|integer|bool|dimen|color|drawable|id)/[\w.]+$"
)
# The entropy a value needs, by how many kinds of characters it mixes: the library measures it
# over the base64 alphabet, so each sign lowers it, and `P@ss(w0rd)` (2.1), a password of all
# four kinds, was let through; a value of two or three kinds needs 2.5.
ENOUGH_ENTROPY = (0.0, 0.0, 2.5, 2.5, 2.0)
# One word, a capital and small letters (`Passwort`, `Kennwort`, `Tokenizer`): 46 of the 926
# values found in 20,000 code and config files on a developer's machine, none a secret (two
# words, `SuperSecret`, still count)
CALLED = lazy(r"[+*/=,!&|][A-Za-z_][\w.]*+\(")  # a call after an operator: code
DOT_PATH = lazy(r"\.[\w.-]*+/")  # a path from a hidden folder, or `../`
WORD_ALONE = lazy(r"[^\W\d_][^\W\d_A-Z]++")
# PowerShell's cmdlet, a verb of its list and a noun (`$pw = ConvertTo-SecureString $env:X`)
CMDLET = lazy(
    r"(?:Get|Set|New|Read|Convert(?:To|From)|Import|Export|Invoke|Add|Remove|Test|Unprotect"
    r"|Protect|Select|Write|Out|Resolve)-(?:[A-Z][a-z]++|[A-Z]{2,4}+(?![a-z]))++"
)
# a locale's name with its encoding or variant (`en_US.UTF-8`, `de_DE@euro`, `C.UTF-8`): a
# call's string (`TokenStr("en_US.UTF-8")`) or a setting, judged and refused as a secret. Its
# variant is one of glibc's few: any word after `@` let `de_DE@hunter` through
LOCALE = lazy(
    r"(?:[a-z]{2,3}_[A-Z]{2}|C|POSIX)(?:\.(?i:utf-?8|iso-?8859-[0-9]{1,2}|euc-[a-z]{2}|gbk"
    r"|gb18030|big5|cp[0-9]{3,4}|koi8-[ru]))?+(?:@(?:euro|latin|cyrillic|valencia|devanagari"
    r"|iqtelif|saaho|abegede|shaw|quot|hebrew|ije))?+"
)


def looks_secret(value: str, entropy: Callable[[str], float], *, names: bool = True) -> bool:
    """Whether a value assigned to a secret-sounding name is one: long enough, no
    placeholder (`<your-token-here>`, `${TOKEN}`, `changeme`, `xxxx`), no reference to
    something else (`os.environ[...]`, `settings.password`, a path), mixed characters and
    enough entropy (ENOUGH_ENTROPY), no variable's name; nor, unless `names` is False (a
    password's own name's value), a cloud's thing's name (dashed_names.dashed_name)."""
    if DOT_PATH.match(value.lstrip("\"'`")):
        return False  # `.venv/bin/python`: its `.` taken off, it was judged as no path
    # one of the commonest passwords with a sign or digits, judged as written: `letmein.` was
    # let through, its `.` taken off with `:` (a label's `Password:`) and the word left alone
    written, value = value.strip("\"'`,;"), value.strip("\"'`,;.:")
    weak = len(written) >= 8 and common_password(written) and not written.startswith("@")
    if (len(value) < 8 and not weak) or value.startswith("[REDACTED:"):
        return False
    if PLACEHOLDER_WORDS.match(value) or names_a_secret(value) or condition(value):
        return False
    if numbered_name(value):  # `passwordHashV2`, `oauth2Token`: code's, digits and all
        return False
    if (parts := vault_parts(value)) is not None:  # `op://Prod/db`, not a literal in it
        return any(looks_secret(part, entropy) for part in parts)
    if technical(value) or (names and dashed_name(value)):  # `aws-iam-identity-center`
        return False
    if referred(value):  # but for what is written beside a template's reference, `${X}v4lue`
        parts = literal_parts(value)
        return parts is not None and any(looks_secret(part, entropy) for part in parts)
    if weak:
        return True  # `!letmein`, `-letmein`: too little entropy, but the commonest
    if WORD_ALONE.fullmatch(value) or LOCALE.fullmatch(value) or CMDLET.fullmatch(value):
        return False  # a capitalised word (`Passwort` of a translation file, `Credentials`)
    classes = character_classes(value)
    return classes >= 2 and len(set(value)) >= 5 and entropy(value) >= ENOUGH_ENTROPY[classes]


OPENERS = {"}": "{", "]": "[", ")": "("}
AFTER_CLOSE = ".!?"  # after a collection's or a parenthesis's close: a sentence's end
AROUND = "\"'`,;"  # the quotes and separators around a value


def assigned_value(raw: str) -> str:
    """A value a keyword rule read, without the quotes and separators around it, nor the
    brackets it ends with that close a flow collection or a parenthesis it sits in
    (`{api_key: v4lue}`, `(password: v4lue)`, its value read as `v4lue}`, `v4lue)`, was a
    reference by its bracket; `${TOKEN}` closes its own), nor a sentence's end after them.
    Each character is looked at once: a bracket taken off at a time, the rest counted again
    each time, took 13 s for `token=Zk9` and 100 KB of `}`."""
    value = raw.strip(AROUND)
    opened = {closer: value.count(opener) for closer, opener in OPENERS.items()}
    closed = {closer: value.count(closer) for closer in OPENERS}
    end = len(value)
    while True:
        cut = end
        while cut and value[cut - 1] in AFTER_CLOSE:
            cut -= 1
        last = value[cut - 1 : cut]
        if last not in OPENERS or closed[last] <= opened[last]:
            return value[:end]
        closed[last] -= 1
        end = cut - 1
        while end and value[end - 1] in AROUND:
            end -= 1


def without_full_stop(value: str, secret: Callable[[str], bool]) -> str:
    """`value` without the full stops that end its sentence (`the token is v4lue.`, read by a
    keyword rule to its run's end), when what is left is still `secret`: the stop was masked
    with it. A dot inside a value stays (a JWT's `a.b.c`), and so does one that makes it a
    secret (`letmein.`, one of the commonest passwords with a sign), and one inside its
    quotes (quoted_stop, by where it stands)."""
    bare = value.rstrip(".")
    return bare if bare != value and bare and secret(bare) else value


def quoted_stop(line: str, end: int) -> int:
    """Where a value placed in `line` up to `end` ends: past the dots after it when a quote
    closes after them, inside which they are the value's, no sentence's end (`password =
    "v4lue."`, `'Bearer v4lue...'`: each such dot was shown beside the mask)."""
    stop = end
    while line.startswith(".", stop):
        stop += 1
    return stop if stop > end and line[stop : stop + 1] in ('"', "'", "`") else end


def real_password(value: str) -> bool:
    """Whether a password found in a URL, a command line or a `.netrc` entry is one: not a
    placeholder (`<PASSWORD>`, `password`, `changeme`) nor a reference (`${DB_PASSWORD}`),
    whichever detector found it."""
    return not PLACEHOLDER_WORDS.match(value) and not referred(value)


def referred(value: str) -> bool:
    """Whether `value` is a reference (REFERENCE), or code: a call after an operator
    (`n+len(tokens)`) or a `)` no `(` in it opened (a signature's `ParseResults):`); not a
    password shaped as a call (memidx.secrets.calls)."""
    if password_call(value):
        return False
    if MEMBER.fullmatch(value):
        return named_member(value)
    return bool(REFERENCE.search(value) or CALLED.search(value)) or (
        value.count(")") > value.count("(")
    )


# an ASCII value's classes, each found in C: four Python passes over each value cost 4 s of
# 1 MB of `password=word<i>xyz` lines' 50 under a profiler
ASCII_CLASSES = tuple(lazy(c).search for c in ("[a-z]", "[A-Z]", "[0-9]", "[^A-Za-z0-9]"))


def character_classes(value: str) -> int:
    """How many of lower case, upper case, digits and symbols `value` mixes (0 to 4)."""
    if value.isascii():
        return sum(search(value) is not None for search in ASCII_CLASSES)
    tests = (str.islower, str.isupper, str.isdigit, _symbol)
    return sum(any(test(c) for c in value) for test in tests)


def _symbol(char: str) -> bool:
    return not char.isalnum()
