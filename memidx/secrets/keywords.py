"""The keyword pass of memidx.secrets.detect: values assigned to secret-sounding names, XML's
too, and bearer and basic tokens, line by line (the lines that hold a stem of such a name).

Each value is judged once in a text: a long line is read as windows (memidx.secrets.windows),
which overlap, and each of the library's rules reads every assignment in each, so one value came
back again and again (`password="` repeated to 1 MB: 23 s of CPU judging the same values). A
value a window cut short that starts inside a run masked already is not judged: masked, it
would end where that run does. The values judged secret are looked for in their line in one
reading (memidx.secrets.places), and a run's end is looked for once (RunEnds). The findings
are the same as before: tests/unit/test_secret_judged_once.py compares them on generated texts
with the pass that judged each value in each window again (tests/unit/secrets_oracle.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memidx.secrets import library
from memidx.secrets.labels import plain_labels
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.linear import next_name
from memidx.secrets.markup import markup_values
from memidx.secrets.one_name_lines import (
    PLAIN_ASSIGNMENT,
    SHORT_ASSIGNMENT,
    plain_line,
    short_line,
)
from memidx.secrets.patterns import BASIC, BEARER, Finding
from memidx.secrets.quotes import closed_at_end, code_strings, matched_quotes, plain_quotes
from memidx.secrets.windows import (
    closed,
    cut_short,
    gives_a_secret_name,
    library_names,
    secret_word,
    unassigned_name,
    windows,
)

KEYWORD_KIND = "secret-assignment"
BEARER_KIND = "bearer-token"
URL_KIND = "basic-auth"  # a password in a URL, or in an `Authorization: Basic` token


def _basic_password(token: str) -> bool:
    """Whether an `Authorization: Basic` token holds a password (`user:password` in base64)
    that is no placeholder (`username:password`, the usual example)."""
    import base64
    import binascii

    from memidx.secrets.values import real_password

    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = decoded.strip().partition(":")
    return bool(colon and user.isprintable() and password) and real_password(password)


# Cheap literal stems of every secret-sounding name: str.find over the text in lower case
# finds the lines worth reading far faster than any expression of alternatives.
# (`pw` holds `pwd`; `pw` and `auth` for `login_pw=`, `auth=`: assignments.EXTRA_WORDS)
STEMS = (
    *("pass", "pw", "auth", "secret", "key", "token", "credential", "bearer", "basic"),
    "contrase",
)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _candidate_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line holding a stem, in order. Once a stem is found the rest of
    its line is skipped: each of a long line's stems read back to its start (1 MB of
    `password=&` on one line: 104,857 reads of half a megabyte, 1.5 s)."""
    lower = text.translate(ASCII_LOWER)  # same length as the text, unlike str.lower()
    starts: set[int] = set()
    for stem in STEMS:
        at = lower.find(stem)
        while at != -1:
            starts.add(lower.rfind("\n", 0, at) + 1)
            end = lower.find("\n", at)
            at = -1 if end == -1 else lower.find(stem, end)
    lines: list[tuple[int, int]] = []
    for start in sorted(starts):
        end = text.find("\n", start)
        lines.append((start, len(text) if end == -1 else end))
    return lines


def assigned(text: str) -> Iterable[Finding]:
    """Values assigned to secret-sounding names, XML's too (memidx.secrets.markup), and bearer
    tokens, that look like secrets; quotes read as memidx.secrets.quotes reads them (curly ones
    as plain, a closing one unlike the opening one as it, one a line's end leaves open closed)."""
    text = plain_labels(matched_quotes(plain_quotes(code_strings(text))))
    yield from markup_values(text, secret_word, library.entropy, KEYWORD_KIND)
    lines = _candidate_lines(text)
    if not lines:  # most texts (a commit's message): what reads such lines is never imported
        return
    from memidx.secrets.blocks import Judged, flow_values, values_below
    from memidx.secrets.encoded import decodings, has_encoded_pairs
    from memidx.secrets.folded import folded_values

    judged = Judged()  # what the keys alone judged on the lines below them
    secret: dict[str, bool] = {}  # each value judged: whether it looked secret
    short: dict[str, list[tuple[int, int]]] = {}  # each SHORT_ASSIGNMENT line's, read once
    read: dict[str, list[Finding]] = {}  # each named line's values, read once
    for start, done in lines:
        line = text[start:done]
        yield from folded_values(text, start, done, KEYWORD_KIND)  # `password: v4` over `  lue`
        if SHORT_ASSIGNMENT.fullmatch(line):  # `password=1`: a short password at most
            found = short_line(line, short) if gives_a_secret_name(line) else []
            yield from (Finding(start + a, start + b, KEYWORD_KIND) for a, b in found)
            continue
        if PLAIN_ASSIGNMENT.fullmatch(line) and gives_a_secret_name(line):  # `password=word1`
            found = plain_line(line, _judge(library.entropy(), secret))
            yield from (Finding(start + a, start + b, KEYWORD_KIND) for a, b in found)
            continue
        yield from values_below(text, start, done, KEYWORD_KIND, judged)  # `password: |`
        yield from flow_values(text, start, done, KEYWORD_KIND, judged)  # `password: {v: x}`
        named = gives_a_secret_name(line) or unassigned_name(line)
        if not named and not has_encoded_pairs(line):
            continue
        line, shut = closed_at_end(line)  # a quote it adds stands at `shut`: nothing ends past
        judge = _judge(library.entropy(), secret)  # the entropy loaded only for such lines
        # a line whose only pairs are encoded is read decoded alone, as a line without any
        # is not read (its 1 MB, `password%3D%26` repeated, was read twice)
        for found in _values_once(line, judge, read) if named else ():
            yield Finding(start + found.start, start + min(found.end, shut), found.kind)
        for plain, places in decodings(line):  # `%26password%3Dv4lue`: masked encoded
            for found in _line_values(plain, judge) if gives_a_secret_name(plain) else ():
                end = min(places[found.end], shut)
                yield Finding(start + places[found.start], start + end, found.kind)


def _values_once(
    line: str, judge: Callable[[str], bool], read: dict[str, list[Finding]]
) -> list[Finding]:
    """_line_values of `line`, each short line's text read once (`read`): 1 MB of
    `password="1"` lines, each read by every pass, cost 11 s, 17 times the prose."""
    found = read.get(line)
    if found is None:
        found = list(_line_values(line, judge))
        if len(read) < 4096 and len(line) <= 256:  # a megabyte's line is never kept
            read[line] = found
    return found


def _line_values(line: str, judge: Callable[[str], bool]) -> Iterable[Finding]:
    """The secret values of one line, placed in it: the library's keyword detector's,
    memidx's (extra_keyword_values), bearer and basic tokens."""
    from memidx.secrets.assignments import extra_keyword_values
    from memidx.secrets.places import every_place
    from memidx.secrets.short import short_passwords
    from memidx.secrets.templates import template_led, templated
    from memidx.secrets.values import assigned_value, quoted_stop, without_full_stop

    kinds: dict[str, str] = {}
    yield from _library_values(line, judge, kinds)
    kinds.update(dict.fromkeys(extra_keyword_values(line, secret_word), KEYWORD_KIND))
    kinds.update(dict.fromkeys(template_led(line, secret_word), KEYWORD_KIND))
    kinds.update({m.group(1): BEARER_KIND for m in BEARER.finditer(line)})
    for match in BASIC.finditer(line):
        if _basic_password(match.group(1)):
            yield Finding(match.start(1), match.end(1), URL_KIND)
    for at, end in short_passwords(line):  # `password: hunter2`, too short to judge
        yield Finding(at, end, KEYWORD_KIND)
    values = ((assigned_value(raw), k) for raw, k in kinds.items() if not templated(line, raw))

    def secret(value: str) -> bool:
        return judge(value) or _passphrase(line, value)

    judged = [(without_full_stop(v, secret), k) for v, k in values if secret(v)]
    for at, end, kind in every_place(line, judged):
        yield Finding(at, quoted_stop(line, end), kind)  # `"v4lue."`: its dot is no full stop


def _passphrase(line: str, value: str) -> bool:
    """Whether a value read as a thing's name is a password's own name's: a passphrase."""
    from memidx.secrets.dashed_names import dashed_name, given_to_a_password
    from memidx.secrets.values import looks_secret

    if not (dashed_name(value) and given_to_a_password(line, value)):
        return False
    return looks_secret(value, library.entropy(), names=False)


def _judge(entropy: Callable[[str], float], secret: dict[str, bool]) -> Callable[[str], bool]:
    """looks_secret, each value judged once: `secret` keeps each one's answer."""
    from memidx.secrets.values import looks_secret

    def judge(value: str) -> bool:
        known = secret.get(value)
        if known is None:
            known = secret[value] = looks_secret(value, entropy)
        return known

    return judge


# The windows of a long line that repeats itself are the same text again and again (`password=&`
# to 1 MB: 8,077 windows, one text): each is read by the library's rules once
WINDOWS_KEPT = 4096


def _library_values(
    line: str, judge: Callable[[str], bool], kinds: dict[str, str]
) -> Iterable[Finding]:
    """The library's keyword detector over the line's windows: each value it finds goes into
    `kinds`, and one a window's end cut short that looks secret is also a finding to the end
    of its run."""
    find = library.keyword_finder()
    names = library_names(line)
    if not names:  # each rule holds a name of the library's list: none matches (`pw=1 ...`)
        return
    run, ends = [0, 0], RunEnds(line)
    read: dict[str, list[str]] = {}  # each window's text read once (WINDOWS_KEPT at most)
    for left, right in windows(line, names):
        window = line[left:right]
        shut = closed(window, right, line)
        values = read.get(shut)
        if values is None:
            values = list(find(shut))
            if len(read) < WINDOWS_KEPT:
                read[shut] = values
        for value in values:
            if not value.split():
                continue
            token = value.split()[0]
            # every place it stands, cut short or not: a cut value's start may also stand
            # whole before it (`pwd: 'v4lue...' ... url=v4lue...`, the window's end in it)
            kinds[token] = KEYWORD_KIND
            at = left + window.rfind(token)
            if cut_short(window, token, right, line) and (
                cut := _cut_value(ends, at, token, judge, run)
            ):
                yield cut


SPACE = lazy(r"\s")


class RunEnds:
    """Where a value's run ends in a long line (its next space, or a secret-sounding name's
    separator before it: `,secret=...`), each end found once. A line of assignments without
    a space (`password=v4lue,password=...`) gave each value cut short a search to the line's
    end for its space: 20 s for 900 KB, quadratic. A run keeps its space and its first name
    for every value that starts in it before them."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.space = (1, 0)  # (from, at): no space from `from` to `at`, one at `at`
        self.named: tuple[int, int, int | None] = (1, 0, None)  # (from, space, its name)

    def end(self, begin: int) -> int:
        """next_name's end of the run a value starting at `begin` begins, or its space."""
        low, space = self.space
        if not low <= begin <= space:
            found = SPACE.search(self.line, begin)
            space = found.start() if found else len(self.line)
            self.space = (begin, space)
        if begin and self.line[begin - 1] in "\"'`":  # next_name reads no name after a quote
            return space
        low, until, name = self.named
        if not (low <= begin and until == space and (name is None or begin <= name)):
            name = next_name(self.line, begin, space, secret_word)
            self.named = (begin, space, name)
        return name or space


def _cut_value(
    line: RunEnds, at: int, token: str, judge: Callable[[str], bool], run: list[int]
) -> Finding | None:
    """A value a window's end cut short, at `at` in the line: when what the window read of it
    looks secret, the whole run of characters it begins (up to the next space) is masked.
    `run` keeps the (from, to) of the last run masked: the windows cut one run again and again
    in a long line without spaces. A value that starts in it is not judged: masked, it would
    end where the run does, inside what is masked already."""
    value = token.strip("\"'`,;")
    if not value:
        return None
    begin = at + token.index(value)
    if run[0] <= begin < run[1] or not judge(value):
        return None
    run[:] = [begin, line.end(begin)]
    return Finding(begin, run[1], KEYWORD_KIND)
