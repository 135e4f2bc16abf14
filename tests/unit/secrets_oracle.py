"""The keyword pass of memidx.secrets.detect as it was before each value was judged once
(main e6ddfeb): the oracle tests/unit/test_secret_judged_once.py compares the new pass with,
on generated texts. It judges each value in each window again, and searches the whole line for
each secret value it found, with the library's own entropy: slow on hostile pastes, exact.
The readers of values added since (template_led) are read here as in the new pass, and a
sentence's full stop after a value is left out as there (values.without_full_stop), but
for one inside the value's quotes (values.quoted_stop)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from memidx.secrets import library
from memidx.secrets.assignments import extra_keyword_values
from memidx.secrets.blocks import Judged, flow_values, values_below
from memidx.secrets.linear import next_name
from memidx.secrets.markup import markup_values
from memidx.secrets.patterns import BASIC, BEARER, Finding
from memidx.secrets.quotes import closed_at_end, code_strings, matched_quotes, plain_quotes
from memidx.secrets.short import short_passwords
from memidx.secrets.templates import template_led
from memidx.secrets.values import (
    assigned_value,
    looks_secret,
    quoted_stop,
    real_password,
    without_full_stop,
)
from memidx.secrets.windows import (
    closed,
    cut_short,
    library_names,
    secret_names,
    secret_word,
    unassigned_name,
    windows,
)

KEYWORD_KIND = "secret-assignment"
BEARER_KIND = "bearer-token"
URL_KIND = "basic-auth"


def _library_entropy() -> Callable[[str], float]:
    """The library plugin's own measure, 64 counts of the text (the new pass counts once)."""
    modules = library._plugin_modules()  # pyright: ignore[reportPrivateUsage]
    plugin: Any = modules["high_entropy_strings"].Base64HighEntropyString()
    return lambda text: float(plugin.calculate_shannon_entropy(text))


def occurrences(text: str, secret: str, kind: str) -> Iterable[Finding]:
    """Every place a secret stands in the text, one str.find over it for each secret."""
    start = text.find(secret)
    while start != -1 and secret:
        yield Finding(start, start + len(secret), kind)
        start = text.find(secret, start + len(secret))


def _basic_password(token: str) -> bool:
    """Whether an `Authorization: Basic` token holds a password (`user:password` in base64)
    that is no placeholder (`username:password`, the usual example)."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = decoded.strip().partition(":")
    return bool(colon and user.isprintable() and password) and real_password(password)


# Cheap literal stems of every secret-sounding name: str.find over the text in lower case
# finds the lines worth reading far faster than any expression of alternatives.
STEMS = ("pass", "pw", "auth", "secret", "key", "token", "credential", "bearer", "basic")
STEMS_MORE = ("contrase",)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _candidate_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line holding a stem, in order."""
    lower = text.translate(ASCII_LOWER)  # same length as the text, unlike str.lower()
    starts: set[int] = set()
    for stem in (*STEMS, *STEMS_MORE):
        at = lower.find(stem)
        while at != -1:
            starts.add(lower.rfind("\n", 0, at) + 1)
            at = lower.find(stem, at + len(stem))
    lines: list[tuple[int, int]] = []
    for start in sorted(starts):
        end = text.find("\n", start)
        lines.append((start, len(text) if end == -1 else end))
    return lines


def assigned(text: str) -> Iterable[Finding]:
    """Values assigned to secret-sounding names, XML's too (memidx.secrets.markup), and bearer
    tokens, that look like secrets; quotes read as memidx.secrets.quotes reads them (curly ones
    as plain, a closing one unlike the opening one as it, one a line's end leaves open closed)."""
    text = matched_quotes(plain_quotes(code_strings(text)))
    yield from markup_values(text, secret_word, library.entropy, KEYWORD_KIND)
    judged = Judged()  # what the keys alone judged on the lines below them
    for start, done in _candidate_lines(text):
        line = text[start:done]
        yield from values_below(text, start, done, KEYWORD_KIND, judged)  # `password: |`
        yield from flow_values(text, start, done, KEYWORD_KIND, judged)  # `password: {v: x}`
        if not secret_names(line) and not unassigned_name(line):
            continue
        line, shut = closed_at_end(line)  # a quote it adds stands at `shut`: nothing ends past
        entropy = _library_entropy()  # loaded only for such lines
        kinds: dict[str, str] = {}
        for cut in _library_values(line, entropy, kinds):
            yield Finding(start + cut.start, start + min(cut.end, shut), cut.kind)
        kinds.update(dict.fromkeys(extra_keyword_values(line, secret_word), KEYWORD_KIND))
        kinds.update(dict.fromkeys(template_led(line, secret_word), KEYWORD_KIND))
        kinds.update({m.group(1): BEARER_KIND for m in BEARER.finditer(line)})
        for match in BASIC.finditer(line):
            if _basic_password(match.group(1)):
                yield Finding(start + match.start(1), start + match.end(1), URL_KIND)
        for at, end in short_passwords(line):
            yield Finding(start + at, start + min(end, shut), KEYWORD_KIND)
        for raw, kind in kinds.items():
            value = assigned_value(raw)
            if looks_secret(value, entropy):
                value = without_full_stop(value, partial(looks_secret, entropy=entropy))
                for hit in occurrences(line, value, kind):
                    end = quoted_stop(line, hit.end)
                    yield Finding(start + hit.start, start + min(end, shut), kind)


def _library_values(
    line: str, entropy: Callable[[str], float], kinds: dict[str, str]
) -> Iterable[Finding]:
    """The library's keyword detector over the line's windows: each value it finds goes into
    `kinds`, and one a window's end cut short that looks secret is also a finding to the end
    of its run."""
    find = library.keyword_finder()
    run = [0, 0]
    for left, right in windows(line, library_names(line)):
        window = line[left:right]
        for value in find(closed(window, right, line)):
            if not value.split():
                continue
            token = value.split()[0]
            # every place it stands, cut short or not: a cut value's start may also stand
            # whole before it (`pwd: 'v4lue...' ... url=v4lue...`, the window's end in it)
            kinds[token] = KEYWORD_KIND
            at = left + window.rfind(token)
            if cut_short(window, token, right, line) and (
                cut := _cut_value(line, at, token, entropy, run)
            ):
                yield cut


SPACE = re.compile(r"\s")


def _cut_value(
    line: str, at: int, token: str, entropy: Callable[[str], float], run: list[int]
) -> Finding | None:
    """A value a window's end cut short, at `at` in the line: when what the window read of it
    looks secret, the whole run of characters it begins (up to the next space) is masked.
    `run` keeps the (from, to) of the last run found: the windows cut one run again and again
    in a long line without spaces, and looking for its end each time made them quadratic."""
    value = token.strip("\"'`,;")
    if not value or not looks_secret(value, entropy):
        return None
    begin = at + token.index(value)
    if not run[0] <= begin < run[1]:
        space = SPACE.search(line, begin)
        end = space.start() if space else len(line)
        run[:] = [begin, next_name(line, begin, end, secret_word) or end]  # `,secret=...` not
    return Finding(begin, run[1], KEYWORD_KIND)
