"""Windows of a long line for the library's keyword detector (pure).

detect-secrets' keyword expressions scan from each secret-sounding name to the end of its line
and back (the value `(?=[^\\v'"]*)...[^\\v'"]*[^\\v,'"`]`), and report the first match of each
expression: a long line dense with such names cost time quadratic in its length (18 s for 40 KB
of `` `PASSWORD:`` repeated, 8 s for `-db_pass`), in C, where no hook's deadline can stop it. A
line longer than LONG_LINE is read as windows instead, each from BEFORE characters before a name
(`'value' == password` puts the value first) to REACH characters after its start, one window for
each name the window before does not hold with half its reach: the work is linear in the line,
and each window reports its own assignments (every match of each expression: library.py).
A window starts at every name of the library's list, assigned or not (`password !== "..."`,
`private_key "...";` are its expressions too), and at the opening quote of a value compared
with a name (`'value' == password`), however long; a window that ends inside a quoted value is
given its closing quote (and a `;`), so the library still reads the value (`"password": "..."`
of 300 characters in a JSON line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache, lru_cache

from memidx.secrets import library
from memidx.secrets.candidates import LEADING_PW, stem_starts
from memidx.secrets.lazy_pattern import lazy

# Characters a name runs on (`db.password`, `PASSWORD"]`): a name ends where they do.
NAME_RUN = r"[\w\"'\]\[.-]"
# A run of them followed by an assignment (`=`, `:`, `:=`, `=>`, a call). Tried only where a
# run begins (the look-behind) and never backing into it: `secretsecret...` tried at each word
# in the run, each try reading to its end, cost time quadratic in the run (6 s for 40 KB).
ASSIGNED_RUN = lazy(rf"(?<!{NAME_RUN}){NAME_RUN}++\s*+(?:=|:|\()")
SPOKEN = lazy(r"(?i)bearer\s|basic\s")


@cache
def _secret_words() -> re.Pattern[str]:
    # SMTP_PASS, `"pass":`, `login_pw=`, `auth=`; `x-api-key:`, `private-key:` (the library
    # reads `api_key`, `private_key` only)
    extra = ["token", "credential", "access[_-]?key", "(?:api|private)-key", "subscription[_-]?key"]
    extra += ["passphrase"]  # `GPG_PASSPHRASE=`: a password's own name, no library's word
    # EXTRA_WORDS's short names, numbered too (`pw1=`), and camelCase's (`loginPw`)
    extra += ["bearer", r"(?<![A-Za-z0-9])(?:pass[0-9]?+|pw[0-9]?+|auth)\b"]
    extra += [r"(?-i:(?<=[a-z])(?:Pw[0-9]?+|Pass[0-9]?+|Auth)\b)", LEADING_PW]
    return re.compile("(?i)(?:" + "|".join([*library.keyword_words(), *extra]) + ")")


def secret_words() -> re.Pattern[str]:
    """The expression of every secret-sounding word (the library's list and memidx's)."""
    return _secret_words()


def secret_word(name: str) -> bool:
    """Whether a name holds a secret-sounding word (`db_password`, `GITHUB_TOKEN`)."""
    return _named(name) if len(name) <= 256 else _secret_words().search(name) is not None


# a long run repeats its names: each read once; a long name is not kept (a cached run of
# megabytes stayed in memory for the process's life)
@lru_cache(maxsize=4096)
def _named(name: str) -> bool:
    return _secret_words().search(name) is not None


def gives_a_secret_name(line: str) -> bool:
    """Whether secret_names finds any in `line`: its first found, by one search in C (every
    name of 1 MB of `password=&` was listed to ask, 0.08 s of CPU), tried only at the runs
    that hold a stem in a line all ASCII (_named_run)."""
    # a short line: one search in C costs less than finding its stems; a line not all ASCII:
    # a word may fold to a stem in another script's letters (`\u212a`)
    if len(line) <= LONG_LINE or not line.isascii():
        return SPOKEN.search(line) is not None or _secret_run().search(line) is not None
    lower = line.translate(ASCII_LOWER)
    if ("bearer" in lower or "basic" in lower) and SPOKEN.search(line) is not None:
        return True
    return _named_run(line, stem_starts(line))


ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
RUN_OF_NAME = lazy(rf"{NAME_RUN}*+")  # read backwards in the reversed line too


def _named_run(line: str, stems: list[int]) -> bool:
    """Whether _secret_run matches at the start of a run of name characters holding one of
    `stems`: nowhere else can it (its look-behind tries it only where a run begins, and each
    secret-sounding word holds a stem). Searched for in the whole line, it was tried at every
    run of a long line of code given a value (a call's name, `x =`): ~0.5 ms a line."""
    reversed_line, end = "", -1
    for stem in stems:
        if stem < end:
            continue  # a stem of the run tried last
        reversed_line = reversed_line or line[::-1]
        back = len(line) - stem
        start, end = stem - _run_end(reversed_line, back) + back, _run_end(line, stem)
        if _secret_run().match(line, start):
            return True
    return False


def _run_end(text: str, at: int) -> int:
    """Where the run of name characters from `at` in `text` ends."""
    run = RUN_OF_NAME.match(text, at)
    return run.end() if run else at


@cache
def _secret_run() -> re.Pattern[str]:
    # ASSIGNED_RUN whose run holds a secret-sounding word: the first found in the run, kept
    # (atomic), as secret_names' search from the run's start finds it; linear, each run read
    # once from its start, and its words looked for only in a run given a value (the look-ahead:
    # every word of prose tried at each of its characters cost 0.2 s of CPU a MB, 7 times more)
    words = _secret_words().pattern.removeprefix("(?i)")
    given = rf"(?={NAME_RUN}++\s*+[=:(])"
    return re.compile(
        rf"(?i)(?<!{NAME_RUN}){given}(?>{NAME_RUN}*?{words}){NAME_RUN}*+\s*+(?:=|:|\()"
    )


def secret_names(line: str) -> list[tuple[int, int]]:
    """(start, end) of each secret-sounding name given a value in `line` (a secret-sounding
    word in a run of name characters followed by an assignment), and of each `bearer `/`basic `,
    in order."""
    words = _secret_words()
    found = [m.span() for m in SPOKEN.finditer(line)]
    for match in ASSIGNED_RUN.finditer(line):
        word = words.search(line, match.start(), match.end())
        if word:
            found.append((word.start(), match.end()))
    return sorted(found)


# What the library's rules match besides a name followed by `=`, `:` or `(`: a comparison
# either way (`password !== "..."`, `'...' == password`) and a quoted value closed by a `;`
# (`private_key "...";`). Each needs one of these marks, found by str.find: linear.
UNASSIGNED_MARKS = ("!=", "==", "!!", '";', "';", "`;")


def unassigned_name(line: str) -> bool:
    """Whether the library's keyword rules may find a value in `line` that secret_names does
    not make worth reading: a name of its list, and a comparison or a `;` after a quote. Its
    names are looked for around their stems (_library_word_matches): the expression of them
    all tried at every character of a long line without one took ~0.5 ms a line."""
    if not any(mark in line for mark in UNASSIGNED_MARKS):
        return False
    if len(line) <= LONG_LINE:  # one search in C costs less than finding its stems
        return _library_words().search(line) is not None
    return next(_library_word_matches(line), None) is not None


LONG_LINE = 256
BEFORE = 32
REACH = 256
# A quoted value compared with what follows (`'value' == `, `"value" !== `), as the library's
# reversed comparison has it; tried at quotes only, each read to the next quote: linear.
COMPARED = lazy(r"([\"'`])[^\v\"'`]*\1\s*[!=]{2,3}\s*")
QUOTES = "\"'`"
NOT_WORD = lazy(r"\W")


@cache
def _library_words() -> re.Pattern[str]:
    return re.compile("(?i)(?:" + "|".join(library.keyword_words()) + ")")


@cache
def _compared_name() -> re.Pattern[str]:
    return re.compile(r"(?i)\w*?(?:" + "|".join(library.keyword_words()) + ")")


def library_names(line: str) -> list[tuple[int, int]]:
    """(left, start) of each place the library's keyword expressions may match in `line`, in
    order of start: the first and the last of its names in each run of word characters, each
    read from BEFORE characters before it (a match at a name between them is one at the first,
    as the name's `\\w*` reaches as far, or reads no further than one at the last: a window at
    each name of `secretsecret...` read to the window's end from each, 4 s for 64 KB), and
    each name compared with a quoted value before it, read from that value's quote."""
    found: list[tuple[int, int]] = []
    first = last = None
    for word in _library_word_matches(line):
        if last is not None and not NOT_WORD.search(line, last.end(), word.start()):
            last = word  # in the run of the name before
            continue
        if last is not None and last is not first:
            found.append((max(0, last.start() - BEFORE), last.start()))
        found.append((max(0, word.start() - BEFORE), word.start()))
        first = last = word
    if last is not None and last is not first:
        found.append((max(0, last.start() - BEFORE), last.start()))
    for compared in COMPARED.finditer(line):
        name = _compared_name().match(line, compared.end())
        if name:
            found.append((compared.start(), name.end()))
    return sorted(found, key=lambda place: place[1])


# Stems of the library's names, each name holding one at most STEM_AT characters from its
# start and ending at most STEM_REACH after it (`database_pass`): its names are looked for only
# around a stem, found by str.find (the expression tried at each character of a line dense
# with names, `a=1 ` to 1 MB, took 0.14 s of CPU). A line not all ASCII is read whole (`\u212a`
# folds to `k`).
LIBRARY_STEMS = ("key", "pass", "pwd", "secret", "contrase")
STEM_AT, STEM_REACH = 9, 14


def _library_word_matches(line: str) -> Iterator[re.Match[str]]:
    """The matches of the library's names in `line`, as finditer over it finds them."""
    words = _library_words()
    if not line.isascii():
        yield from words.finditer(line)
        return
    stems = stem_starts(line, LIBRARY_STEMS)
    index = 0
    while index < len(stems):  # each span of stems closer than a name's reach, read once
        low, high = max(0, stems[index] - STEM_AT), stems[index] + STEM_REACH
        while index + 1 < len(stems) and stems[index + 1] - STEM_AT <= high:
            index += 1
            high = stems[index] + STEM_REACH
        yield from words.finditer(line, low, high)
        index += 1


def windows(line: str, names: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """(start, end) of each window of `line` to read, given the (left, start) of its names
    (library_names): the whole line when it is short."""
    if len(line) <= LONG_LINE:
        yield 0, len(line)
        return
    left, end = len(line), -1
    for first, start in names:
        if start + REACH // 2 <= end and first >= left:  # the window before holds it
            continue
        left, end = first, min(len(line), start + REACH)
        yield left, end


def closed(window: str, end: int, line: str) -> str:
    """The window as the library reads it: a window that ends before its line does is given
    a copy of its last quote and a `;`, which close the quoted value a window's end cut short
    (the library reads a quoted value only to its closing quote, `private_key "...";` to its
    `;`); a value they closed is one the window cut short."""
    if end >= len(line):
        return window
    last = max(window.rfind(quote) for quote in QUOTES)
    return window + window[last] + ";" if last != -1 else window


def cut_short(window: str, token: str, end: int, line: str) -> bool:
    """Whether the window's end cut `token` (a value it found) short: no space between the
    token's last place in the window and the window's end, and the line goes on."""
    if end >= len(line) or line[end].isspace():
        return False
    at = window.rfind(token)
    return at != -1 and SPACE.search(window, at + len(token)) is None


SPACE = lazy(r"\s")
