"""Finding secrets in a whole note or transcript at once, and redacting them.

Each library detector runs once over the whole text (its regular expressions scan in C), not
once per line; the keyword detector, which reads one assignment at a time, runs only on the
lines that name a secret-sounding word, found by one combined expression. memidx's own
patterns (memidx.secrets.patterns) add the kinds the library lacks.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from memidx.frozen import Value
from memidx.private import PRIVATE_KIND
from memidx.secrets import library
from memidx.secrets.commands import COMMAND_PASSWORDS
from memidx.secrets.jwe import jwe_tokens
from memidx.secrets.keywords import URL_KIND, assigned
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.netrc import netrc_passwords
from memidx.secrets.patterns import (
    BLOCK_MARKS,
    URL_PASSWORD,
    Finding,
    allowed_lines,
    merged,
    outside,
    own_findings,
    port_not_password,
    private_spans,
    redact,
    url_password,
)

COMMAND_KIND = "command-password"  # a password on a command line (curl -u, mysql -p...)


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
    found.extend(_back(f, places) for f in jwe_tokens(joined))
    if library.may_find(joined):  # else the plugins need not even load
        for kind, spans in library.library_finders():
            found.extend(
                _back(Finding(start, end, kind), places)
                for start, end in spans(joined)
                if kind != URL_KIND or _real_password(url_password(joined[start:end]))
            )
    for match in URL_PASSWORD.finditer(joined):
        user, password = match.group(1, 2)
        host = joined[match.end() : match.end() + 300]
        if _real_password(password) and not port_not_password(user, password, host):
            found.append(_back(Finding(*match.span(2), URL_KIND), places))
    found.extend(_command_passwords(text))
    found.extend(netrc_passwords(text))
    if any(mark in text for mark in BLOCK_MARKS):  # a key block has spaces: the whole text
        found.extend(f for f in own_findings(text, blocks=True))
    if keywords:
        found.extend(assigned(text))
    result = [f for f in merged(found) if text[f.start : f.end] not in PUBLISHED_EXAMPLES]
    return outside(result, _allowed(text)) if allow and result else result  # none: none left


def _real_password(password: str) -> bool:
    """values.real_password, imported at the first password found: most texts (a commit's
    message) hold none, and what judges one costs each check's import (~5 ms)."""
    from memidx.secrets.values import real_password

    return real_password(password)


def _allowed(text: str) -> list[tuple[int, int]]:
    """The (start, end) of what the allow markers of `text` leave alone (allowed.allowed_values,
    imported only for a text checked with them)."""
    from memidx.secrets.allowed import allowed_values

    return allowed_values(text, allowed_lines(text))


LONG = 8  # a command's password this long is masked without the full stops after it


def _command_passwords(text: str) -> Iterable[Finding]:
    """Passwords given to curl, HTTPie, the mysql clients or sshpass on a command line (a
    placeholder such as `user:password` or `-p$DB_PASSWORD` is none), without the `,` or `;`
    after them, nor a long one's sentence's full stop (`curl -u bob:<16 characters>.`; a dot
    inside its quotes is its own)."""
    for command, pattern in COMMAND_PASSWORDS:
        if command not in text:  # a literal find first: most texts name none of them
            continue
        for match in pattern.finditer(text):
            password = match.group(1).rstrip(",;")
            quoted = text[match.end(1) : match.end(1) + 1] in ("'", '"')  # `'bob:v4lue.'`: its
            if len(password.rstrip(".")) >= LONG and not quoted:  # dot, no sentence's end
                password = password.rstrip(".")
            if len(password) >= 4 and _real_password(password):
                yield Finding(match.start(1), match.start(1) + len(password), COMMAND_KIND)


# Every token detector's secret is a run of 16 or more characters without a space: the
# detectors read only those runs, joined by newlines (~10x less text than prose).
LONG_RUN = lazy(r"\S{16,}")


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


def redact_text(text: str, *, allow: bool = False, keywords: bool = True) -> Redaction:
    """`text` with `<private>…</private>` spans and every secret replaced by
    `[REDACTED:<kind>]`; `allow` keeps lines with an allow marker as they are (notes)."""
    findings = merged([*private_spans(text), *find_secrets(text, keywords=keywords)])
    if allow and findings:
        allowed = _allowed(text)
        kept = set(outside([f for f in findings if f.kind != PRIVATE_KIND], allowed))
        findings = [f for f in findings if f.kind == PRIVATE_KIND or f in kept]
    kinds = tuple(sorted({f.kind for f in findings}))
    return Redaction(redact(text, findings), len(findings), kinds, _places_of(text, findings))


def _places_of(text: str, findings: Iterable[Finding]) -> tuple[tuple[int, str], ...]:
    """(1-based line, kind) of each finding, in order: the newlines are counted from the one
    before, not from the start of the text each time (16,000 findings in a 4 MB transcript
    took 15 s so)."""
    places: list[tuple[int, str]] = []
    line, at = 1, 0
    for found in findings:
        line += text.count("\n", at, found.start)
        at = found.start
        places.append((line, found.kind))
    return tuple(places)


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
