"""Linear stand-ins for the detect-secrets patterns that backtrack quadratically (pure).

Tried at every `eyJ`, `sk-` or `//`, the library's JWT, OpenAI and npm patterns scan to the end
of the run of characters they may span and back: a paste of `eyJeyJeyJ...` or `sk-sk-...` cost
time quadratic in its length (9 s for 150 KB), in C, where no hook's deadline can stop it. Each
stand-in tries its pattern only at the first such prefix of each run. Where the first one fails,
every later one in the run fails too (their characters reach the same end of the run, and a
later start adds no place to end: the patterns begin with the prefix, and the prefix cannot
overlap itself), and a match leaves no other match in its run, so the stand-in finds the same
matches. tests/unit/test_secrets_linear.py checks both, and that they stay linear. The
library's keyword rules, which report their first match only, are read for every match here
too, without reading a place twice (tests/unit/test_secret_keywords.py).
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable, Iterator
from functools import cache

from memidx.secrets.lazy_pattern import lazy


def first_in_run(run: str, prefix: str, pattern: str) -> str:
    """`pattern`, which starts with `prefix`, tried only at the first `prefix` of each run of
    `run` characters, as group 1 (the run's characters before it are matched but not kept)."""
    return rf"(?<!{run})(?>{run}*?(?={re.escape(prefix)}))({pattern})"


# detect-secrets 1.5.0's patterns (library_patterns.TOKEN_PATTERNS) and their stand-ins: group
# 1 of a stand-in is the library pattern's whole match, its later groups the library pattern's
# own.
JWT = r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?"
OPENAI = r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"
NPM = r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*"
STAND_INS = {
    # the JWT's lazy tail always matches nothing; possessive: `.` is not a run character
    JWT: first_in_run("[A-Za-z0-9-_=]", "eyJ", r"eyJ[A-Za-z0-9-_=]++\.[A-Za-z0-9-_=]++\.?"),
    OPENAI: first_in_run("[A-Za-z0-9-_]", "sk-", OPENAI),
    NPM: first_in_run(r"[^\n]", "//", NPM),  # `.` spans a line
}


def linear(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], int]:
    """The pattern to run in place of a library pattern, and which of its groups is the
    library pattern's whole match (0: it is the library's own)."""
    stand_in = STAND_INS.get(pattern.pattern)
    if stand_in is None:
        return pattern, 0
    return _compiled(stand_in, pattern.flags), 1


@cache
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)


FIRST_WORD = lazy(r"\s*+\S*+")


def every_match(
    rules: dict[re.Pattern[str], int], line: str, named: Callable[[str], bool] | None = None
) -> Iterator[str]:
    """The group given for each rule (the library's keyword rules) of every match in `line`.
    The library reports each rule's first match only; each rule is read again after each
    match, from the end of its value's first word (the part memidx reads; the rest may hold
    the next name: `password=a password="..."`), or from a name (`named`) that word holds
    after a separator, where the value ends (`password=x,secret=...`), so no place is tried
    twice and a long value is read once: the work is that of one reading that finds
    nothing."""
    for rule, group in _tried(rules, line):
        match = rule.search(line)
        while match:
            start = match.start(group)
            word = FIRST_WORD.match(line, start, match.end(group))
            after = word.end() if word else match.end(group)
            cut = next_name(line, start, after, named) if named else None
            if not _getter_argument(line, start):
                yield match.group(group) if cut is None else line[start:cut]
            match = rule.search(line, max(after if cut is None else cut, match.start() + 1))


# Always true, the library's keyword rules' lookahead before a value reads to the line's end
# at each name given one (a window of `password=&` repeated, 288 times 29 characters, in C):
# without it each rule matches the same. A rule that holds a quote of its own, a `:`, a `:=`,
# an `=` or a closing `;` (NEEDS: a shape in its text, the marks a line must hold one of)
# cannot match a line without one, and is not tried there.
NO_OP = r"(?=[^\v\'\"]*)"
QUOTE_GROUP = re.escape("([\\'\"`])") + r"(?!\?)"
NEEDS = (
    (lazy(QUOTE_GROUP), ("'", '"', "`")),
    (lazy(re.escape('(")')), ('"',)),
    (lazy(re.escape(")?:")), (":",)),
    (lazy(re.escape(":=")), (":=",)),
    (lazy(re.escape("(={1,3}|!==?)") + "|" + re.escape(r"\s*=>?")), ("=",)),
    (lazy(r"\);\Z"), (";",)),
)


@cache
def _keyword_rule(rule: re.Pattern[str]) -> tuple[re.Pattern[str], tuple[tuple[str, ...], ...]]:
    """A library keyword rule without its no-op lookahead, and for each shape of NEEDS it
    holds, the marks one of which a line must hold for it to match."""
    needs = tuple(marks for shape, marks in NEEDS if shape.search(rule.pattern))
    pattern = rule.pattern.replace(NO_OP, "")
    return re.compile(_first_letters(pattern, rule.flags) + pattern, rule.flags), needs


def _first_letters(pattern: str, flags: int) -> str:
    """A look-ahead for the first letters of the library's names, for a rule in any case that
    begins with them: the engine tried their alternation at every character of a window (~45
    µs a window, each rule), and skips to those letters so (a third of that), matching the
    same (in any case too: the letters and the names fold alike)."""
    from memidx.secrets.library_patterns import KEYWORD_WORDS

    if not flags & re.IGNORECASE or not pattern.startswith(f"({'|'.join(KEYWORD_WORDS)})"):
        return ""
    return f"(?=[{''.join(sorted({word[0] for word in KEYWORD_WORDS}))}])"


MARKS = ("'", '"', "`", ":", ":=", "=", ";")  # the marks of NEEDS, a bit each
Tried = list[tuple[re.Pattern[str], int]]
_CHOSEN: dict[tuple[int, int], tuple[dict[re.Pattern[str], int], Tried]] = {}


def _tried(rules: dict[re.Pattern[str], int], line: str) -> Tried:
    """(rule without its no-op lookahead, group) of each of `rules` that may match `line`: its
    NEEDS met, chosen once for each set of MARKS a line holds (each rule's marks looked for in
    each line, in Python, cost ~20 µs a line: 1 MB of `password=abcdefgh` took 5 s)."""
    held = 0
    for bit, mark in enumerate(MARKS):
        if mark in line:
            held |= 1 << bit
    kept = _CHOSEN.get((id(rules), held))  # the rules are kept with it: their id stays theirs
    if kept is not None and kept[0] is rules:
        return kept[1]
    tried: Tried = []
    for library_rule, group in rules.items():
        rule, needs = _keyword_rule(library_rule)
        masks = [sum(1 << MARKS.index(mark) for mark in marks) for marks in needs]
        if all(held & mask for mask in masks):
            tried.append((rule, group))
    if len(_CHOSEN) >= 1024:  # tests give rules of their own: a bound
        _CHOSEN.clear()
    _CHOSEN[(id(rules), held)] = (rules, tried)
    return tried


# A call that reads, looks up or deletes a secret is given its name, not the secret
# (`keyring.get_password("my-service", "bob")`, `vault.read_secret("secret/data/prod/db")`):
# the library's `password("...")` rule, in small letters, read each as a password. A test
# of one is given the secret, as `check_password(...)` is (`is_valid_password("v4lue")`);
# a store's `has_secret("prod/db")`, `has_password("svc")` asks for a name, as a getter.
# The call's name is read back from the value's `(` at most 64 characters.
GETTER_CALL = lazy(
    r"(?:^|[^\w])(?:get|read|fetch|load|lookup|find|query|retrieve|delete|remove|del|has)"
    r"(?:_|(?=[A-Z]))[\w]*+[ \t]*+\([ \t]*+[\"'`]?+$"
)


def _getter_argument(line: str, start: int) -> bool:
    """Whether the value at `start` is the first argument of a getter's call (GETTER_CALL)."""
    return GETTER_CALL.search(line, max(0, start - 64), start) is not None


# A name after a separator within a value without spaces (`password=x,secret=...`, a query
# string's `&token=`): its run of name characters and its assignment, read once from each.
NEXT_NAME = lazy(r"[,;&]([\w.-]++)[\"']?+\s*+(?::=|=>|[:=])")


# How far past a value next_name reads: the separators of a long run found in one reading each
# (a reading per value, 104,857 of them in 1 MB of `password=&`, cost 0.3 s of CPU). A match
# that ends past the value is kept by where its shortest form ends, which is no answer for it.
AHEAD = 4096
NAME_BEGUN = lazy(r"[,;&][\w.-]*+[\"']?+\s*+:?+")  # what a match cut at its end may be


def next_name(line: str, start: int, end: int, named: Callable[[str], bool]) -> int | None:
    """Where (at its separator) the first name `named` says is secret-sounding that is given
    a value within `line[start:end]` begins, or a query string's next pair (QUERY_PAIR); None
    when there is none, or when the value starts after a quote: a quoted value is one
    (`password="x,token=y"`), and cut there its parts, each too short to judge, were shown
    where the whole was masked. Each separator of a line is judged once (_Judged)."""
    if start and line[start - 1] in "\"'`":
        return None
    memo = _JUDGED
    if memo.line is not line or memo.named is not named or not memo.low <= start <= memo.upto:
        memo.line, memo.named, memo.low, memo.upto, memo.names = line, named, start, start, []
    if end > memo.upto:  # read ahead (AHEAD)
        ahead = min(len(line), end + AHEAD)
        for found in NEXT_NAME.finditer(line, memo.upto, ahead):
            if named(found.group(1)) or _query_pair(line, found.start()):
                two = line[found.end() - 2 : found.end()] in (":=", "=>")  # `:` or `=` ends one
                memo.names.append((found.start(), found.end() - two))
            memo.upto = found.end()
        # only a match from the last separator may reach past `ahead` (a match holds none other)
        last = max(line.rfind(",", memo.upto, ahead), line.rfind(";", memo.upto, ahead))
        last = max(last, line.rfind("&", memo.upto, ahead))
        begun = NAME_BEGUN.match(line, last, ahead) if last != -1 else None
        memo.upto = last if begun and begun.end() == ahead < len(line) else ahead
    index = bisect.bisect_left(memo.names, (start, -1))
    if index < len(memo.names) and memo.names[index][1] <= end:
        return memo.names[index][0]
    return None


class _Judged(threading.local):
    """The separators next_name judged in the last line it read, in this thread: each value
    of `token=!a&b=` repeated read every `&b=` of its 200 characters again (690,000 judged
    for 36,000 names, 4.6 s for 1 MB). From `low` to `upto` every separator with a name
    given a value is judged; `names` holds (separator, where its shortest match ends) of
    those found, in order. A match's shortest end grows with its separator, and a match
    holds no other separator: the first found at or after a value's start is next_name's
    answer when it ends within the value, and none after it can."""

    def __init__(self) -> None:
        self.line: str | None = None
        self.named: Callable[[str], bool] | None = None
        self.low = self.upto = 0
        self.names: list[tuple[int, int]] = []


_JUDGED = _Judged()


# A query string's next pair, whatever its name, `=` right after it: a value's `&` is
# percent-encoded there (`token_type=bearer&grant_type=password` was refused as one value)
QUERY_PAIR = lazy(r"&[A-Za-z_][\w.-]*+=(?!=)")
# the pair before it is a query string's (`?access_token=v4lue`, `&token=v4lue`) or gives a
# word (`token_type=bearer`; read backwards from the `&`): elsewhere `&` and `=` are a
# password's signs
PAIR_IN_QUERY = lazy(r"[?&][\w.-]++=[^\s&?=]*+")
WORD_PAIR_BACKWARDS = lazy(r"[A-Za-z_]++=[\w.-]++(?:[\s;,]|$)")


def _query_pair(line: str, at: int) -> bool:
    """Whether a query string's next pair (QUERY_PAIR) begins at `at`: the pair before it
    is one's (PAIR_IN_QUERY, WORD_PAIR_BACKWARDS). In a .env file's `DB_PASSWORD=Xk9#mQ2&zP=7vLq`
    the value was cut there, each part let through (`password=Zq8vT2mW&x=9pLq` masked in
    part). Read back at most 200 characters, without a search: each `&` of a long run is
    tried."""
    if not QUERY_PAIR.match(line, at):
        return False
    low = max(0, at - 200)
    pair = max(line.rfind("&", low, at), line.rfind("?", low, at))
    if pair != -1 and PAIR_IN_QUERY.fullmatch(line, pair, at):
        return True
    return WORD_PAIR_BACKWARDS.match(line[low:at][::-1]) is not None


# Read back from a query pair's `&` (reversed): the pairs before it up to the first, which a
# name (group 1, reversed) gives with `=` or `: ` where a run of the line or a quote begins: a
# word (`secret=ab&cd=v4lue`, see _query_pair) or a value that holds the pairs up to the next
# query pair (`secret=v4lue&cd=v4lue&ef=v4lue`, `"secret=ab&cd=v4lue&ef=v4lue"`, `secret: ab&`
# ...: the last pair's value was let through, only the first run masked), or after a `=`, a
# parameter's value (`q=secret%3Dab%26cd%3Dxy%26ef%3Dv4lue` decoded: the last was let through)
OPENED_BACKWARDS = lazy(
    r"(?:[^\s&?=]*+=[\w.-]++&)*+[^\s&?=:\"'`]*+(?:=|[ \t]?+:)([\w.-]++)(?:[\s;,\"'`=]|$)"
)


def opened_by_name(line: str, at: int, named: Callable[[str], bool]) -> bool:
    """Whether the query pair at `at` (its `&`) is one of those that follow a first pair that
    `named` says is secret-sounding, outside any query string (OPENED_BACKWARDS):
    `secret=ab&cd=Zq8vT2mW9pLq` is cut after `ab` as a query string's pairs are, and the
    value after `cd=` was judged as no one's (a .env file's value `ab&cd=Zq8...` let through).
    Read back at most 200 characters."""
    if not QUERY_PAIR.match(line, at):
        return False
    low = max(0, at - 200)
    back = OPENED_BACKWARDS.match(line[low:at][::-1])
    return back is not None and named(back[1][::-1])
