"""Finding secrets in a whole note or transcript at once, and redacting them.

Each library detector runs once over the whole text (its regular expressions scan in C), not
once per line; the keyword detector, which reads one assignment at a time, runs only on the
lines that name a secret-sounding word, found by one combined expression. memidx's own
patterns (memidx.secrets.patterns) add the kinds the library lacks.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable

from memidx.frozen import Value
from memidx.private import PRIVATE_KIND
from memidx.secrets import library
from memidx.secrets.assignments import extra_keyword_values
from memidx.secrets.blocks import allowed_values, flow_values, values_below
from memidx.secrets.linear import next_name
from memidx.secrets.markup import markup_values
from memidx.secrets.netrc import netrc_passwords
from memidx.secrets.patterns import (
    BASIC,
    BEARER,
    BLOCK_MARKS,
    COMMAND_PASSWORDS,
    URL_PASSWORD,
    Finding,
    allowed_lines,
    assigned_value,
    looks_secret,
    merged,
    occurrences,
    outside,
    own_findings,
    places_of,
    port_not_password,
    private_spans,
    real_password,
    redact,
    url_password,
)
from memidx.secrets.quotes import closed_at_end, code_strings, matched_quotes, plain_quotes
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
COMMAND_KIND = "command-password"  # a password on a command line (curl -u, mysql -p...)
URL_KIND = "basic-auth"  # a password in a URL: the library's detector and memidx's pattern


class Redaction(Value):
    """A text with its secrets and private spans replaced: how many, their kinds, and the
    (1-based line in the text given, kind) of each in order, never the secret itself."""

    text: str
    count: int
    kinds: tuple[str, ...]
    places: tuple[tuple[int, str], ...] = ()


# Keys their vendor publishes as examples in its documentation: notes quote them as they are
# (AWS: https://docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html).
PUBLISHED_EXAMPLES = frozenset({"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})


def find_secrets(text: str, *, keywords: bool = True, allow: bool = False) -> list[Finding]:
    """The secrets in `text`, merged and in order. `keywords`: also values assigned to
    secret-sounding names (`PASSWORD=...`, `api_key: ...`); `allow`: lines that carry an allow
    marker (`memidx: allow-secret`) are left alone, and on a YAML key alone (`password: |`)
    the value below it too."""
    joined, places = _long_runs(text)
    found: list[Finding] = [_back(f, places) for f in own_findings(joined)]
    if library.may_find(joined):  # else the plugins need not even load
        for kind, spans in library.library_finders():
            found.extend(
                _back(Finding(start, end, kind), places)
                for start, end in spans(joined)
                if kind != URL_KIND or real_password(url_password(joined[start:end]))
            )
    for match in URL_PASSWORD.finditer(joined):
        user, password = match.group(1, 2)
        host = joined[match.end() : match.end() + 300]
        if real_password(password) and not port_not_password(user, password, host):
            found.append(_back(Finding(*match.span(2), URL_KIND), places))
    found.extend(_command_passwords(text))
    found.extend(netrc_passwords(text))
    if any(mark in text for mark in BLOCK_MARKS):  # a key block has spaces: the whole text
        found.extend(f for f in own_findings(text, blocks=True))
    if keywords:
        found.extend(_assigned(text))
    result = [f for f in merged(found) if text[f.start : f.end] not in PUBLISHED_EXAMPLES]
    return outside(result, allowed_values(text, allowed_lines(text))) if allow else result


def _command_passwords(text: str) -> Iterable[Finding]:
    """Passwords given to curl, HTTPie, the mysql clients or sshpass on a command line (a
    placeholder such as `user:password` or `-p$DB_PASSWORD` is none)."""
    for command, pattern in COMMAND_PASSWORDS:
        if command not in text:  # a literal find first: most texts name none of them
            continue
        for match in pattern.finditer(text):
            password = match.group(1).rstrip(",;")
            if len(password) >= 4 and real_password(password):
                yield Finding(match.start(1), match.end(1), COMMAND_KIND)


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


# Every token detector's secret is a run of 16 or more characters without a space: the
# detectors read only those runs, joined by newlines (~10x less text than prose).
LONG_RUN = re.compile(r"\S{16,}")


def _long_runs(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The long runs of `text` joined by newlines, and (offset in the joined text, offset in
    `text`) of each run."""
    runs: list[str] = []
    places: list[tuple[int, int]] = []
    at = 0
    for match in LONG_RUN.finditer(text):
        places.append((at, match.start()))
        runs.append(match.group())
        at += len(match.group()) + 1
    return "\n".join(runs), places


def _back(found: Finding, places: list[tuple[int, int]]) -> Finding:
    """A finding in the joined runs, placed in the original text."""
    return Finding(_place(found.start, places), _place(found.end - 1, places) + 1, found.kind)


def _place(offset: int, places: list[tuple[int, int]]) -> int:
    index = bisect.bisect_right(places, offset, key=lambda place: place[0]) - 1
    joined_at, text_at = places[index]
    return text_at + offset - joined_at


# Cheap literal stems of every secret-sounding name: str.find over the text in lower case
# finds the lines worth reading far faster than any expression of alternatives.
STEMS = ("pass", "pwd", "secret", "key", "token", "credential", "bearer", "basic", "contrase")
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _candidate_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line holding a stem, in order."""
    lower = text.translate(ASCII_LOWER)  # same length as the text, unlike str.lower()
    starts: set[int] = set()
    for stem in STEMS:
        at = lower.find(stem)
        while at != -1:
            starts.add(lower.rfind("\n", 0, at) + 1)
            at = lower.find(stem, at + len(stem))
    lines: list[tuple[int, int]] = []
    for start in sorted(starts):
        end = text.find("\n", start)
        lines.append((start, len(text) if end == -1 else end))
    return lines


def _assigned(text: str) -> Iterable[Finding]:
    """Values assigned to secret-sounding names, XML's too (memidx.secrets.markup), and bearer
    tokens, that look like secrets; quotes read as memidx.secrets.quotes reads them (curly ones
    as plain, a closing one unlike the opening one as it, one a line's end leaves open closed)."""
    text = matched_quotes(plain_quotes(code_strings(text)))
    yield from markup_values(text, secret_word, library.entropy, KEYWORD_KIND)
    judged: dict[int, bool] = {}  # each line below a key alone: whether it looked secret
    for start, done in _candidate_lines(text):
        line = text[start:done]
        yield from values_below(text, start, done, KEYWORD_KIND, judged)  # `password: |`
        yield from flow_values(text, start, done, KEYWORD_KIND, judged)  # `password: {v: x}`
        if not secret_names(line) and not unassigned_name(line):
            continue
        line, shut = closed_at_end(line)  # a quote it adds stands at `shut`: nothing ends past
        entropy = library.entropy()  # loaded only for such lines
        kinds: dict[str, str] = {}
        for cut in _library_values(line, entropy, kinds):
            yield Finding(start + cut.start, start + min(cut.end, shut), cut.kind)
        kinds.update(dict.fromkeys(extra_keyword_values(line, secret_word), KEYWORD_KIND))
        kinds.update({m.group(1): BEARER_KIND for m in BEARER.finditer(line)})
        for match in BASIC.finditer(line):
            if _basic_password(match.group(1)):
                yield Finding(start + match.start(1), start + match.end(1), URL_KIND)
        for raw, kind in kinds.items():
            value = assigned_value(raw)
            if looks_secret(value, entropy):
                for hit in occurrences(line, value, kind):
                    yield Finding(start + hit.start, start + min(hit.end, shut), kind)


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


def redact_text(text: str, *, allow: bool = False, keywords: bool = True) -> Redaction:
    """`text` with `<private>…</private>` spans and every secret replaced by
    `[REDACTED:<kind>]`; `allow` keeps lines with an allow marker as they are (notes)."""
    findings = merged([*private_spans(text), *find_secrets(text, keywords=keywords)])
    if allow:
        allowed = allowed_values(text, allowed_lines(text))
        findings = [f for f in findings if f.kind == PRIVATE_KIND or f in outside([f], allowed)]
    kinds = tuple(sorted({f.kind for f in findings}))
    return Redaction(redact(text, findings), len(findings), kinds, places_of(text, findings))


def mask(text: str) -> str:
    """`text` as output may show it: every secret the detector flags and every `<private>`
    span replaced (defence in depth for what was stored before redaction existed, or before
    the span was marked private); allow-marked lines keep their secrets, not their spans."""
    findings = merged([*private_spans(text), *find_secrets(text, allow=True)])
    return redact(text, findings) if findings else text


def mask_many(texts: list[str]) -> list[str]:
    """mask() of each text, with one pass of the detectors over them all (the per-call cost
    of ~20 expressions dominates for short texts such as a search's snippets). The texts are
    joined by blank lines, which no finding crosses; a finding is clipped to its own text."""
    joined = "\n\n".join(texts)
    findings = find_secrets(joined, allow=True)
    at = 0
    for text in texts:  # read one text at a time: an unclosed span runs to its text's end
        findings += [Finding(at + f.start, at + f.end, f.kind) for f in private_spans(text)]
        at += len(text) + 2
    findings = merged(findings)
    if not findings:
        return list(texts)
    out: list[str] = []
    start = 0
    for text in texts:
        end = start + len(text)
        own = [
            Finding(max(f.start, start) - start, min(f.end, end) - start, f.kind)
            for f in findings
            if f.start < end and f.end > start
        ]
        out.append(redact(text, own) if own else text)
        start = end + 2
    return out
