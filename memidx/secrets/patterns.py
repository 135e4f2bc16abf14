"""memidx's own secret patterns, for kinds detect-secrets lacks, and the pure steps around
every detector: private spans, allow markers, merging overlapping findings and writing
`[REDACTED:<kind>]` in their place (which values are secrets: memidx.secrets.values)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate

from memidx.frozen import Value
from memidx.private import PRIVATE_KIND, private_ranges
from memidx.secrets.lazy_pattern import lazy

# Kinds detect-secrets 1.5.0 has no plugin for (each has a test in tests/unit/test_secrets.py).
OWN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic-key", lazy(r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}")),
    # OpenAI's project, service-account and admin keys (the library knows only T3BlbkFJ ones)
    ("openai-key", lazy(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}")),
    ("github-token", lazy(r"github_pat_[A-Za-z0-9_]{60,}")),  # fine-grained
    ("google-api-key", lazy(r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ("huggingface-token", lazy(r"hf_[A-Za-z0-9]{34,}(?![A-Za-z0-9])")),
    ("npm-token", lazy(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    ("digitalocean-token", lazy(r"do[por]_v1_[a-f0-9]{64}(?![a-f0-9])")),
    ("stripe-key", lazy(r"(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{24,}|whsec_[0-9a-zA-Z]{32,}")),
    ("slack-token", lazy(r"xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}")),  # app-level token
    # a private key block in base64, as kubeconfig's `client-key-data:` holds one (its BEGIN
    # line's first bytes in base64: RSA, EC, PKCS#8, OpenSSH, encrypted PKCS#8, DSA)
    (
        "private-key",
        lazy(
            r"LS0tLS1CRUdJTiB(?:SU0EgUFJJVkFURSBLRVkt|FQyBQUklWQVRFIEtFWS0t|QUklWQVRFIEtFWS0t"
            r"|PUEVOU1NIIFBSSVZBVEUgS0VZLS0t|FTkNSWVBURUQgUFJJVkFURSBLRVkt|EU0EgUFJJVkFURSBLRVkt)"
            r"[A-Za-z0-9+/]{40,}={0,2}"
        ),
    ),
)
OWN_BLOCKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # the whole block, not only its BEGIN line; a block cut short runs to a blank line, but
    # the one that ends its headers (`Proc-Type:`, `DEK-Info:`; PGP armor has one always)
    (
        "private-key",
        lazy(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[ \t]*\r?\n(?:[A-Za-z][\w-]*:[^\n]*\n)*[ \t]*\r?(?=\n))?"
            r"[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\n[ \t]*\n|\Z)"
            # the SSH2 (RFC 4716) form, `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`
            r"|---- BEGIN [A-Z0-9 ]*PRIVATE KEY ----"
            r"[\s\S]*?(?:---- END [A-Z0-9 ]*PRIVATE KEY ----|\n[ \t]*\n|\Z)"
            # a PuTTY key file: its header to its MAC (the key is in its Private-Lines)
            r"|PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:[^\n]*|\n[ \t]*\n|\Z)"
        ),
    ),
)
BLOCK_MARKS = ("PRIVATE KEY", "PuTTY-User-Key-File")  # a text naming none has no key block
# `Authorization: Bearer <token>`: the token, when it looks random (checked like a value)
BEARER = lazy(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)")
# `Authorization: Basic <base64 of user:password>`: a password, as in a URL
BASIC = lazy(r"(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")
ALLOW_MARKERS = ("memidx: allow-secret", "pragma: allowlist secret")
# A password in a URL (`scheme://user:password@host`, `redis://:password@host` with no user,
# which the library's pattern needs; group 1 the user, 2 the password), whatever it holds: the
# library's pattern skips passwords with RFC 3986 delimiters (`!`, `#`, `+`...), which pasted
# connection strings often have unencoded. It is tried only where a run of scheme characters
# starts (the scheme is the run's first letter on): tried at every letter, a long run of them
# (a blob in a tool's output) cost time quadratic in its length, minutes for 1 MB, in C,
# where no hook's deadline can stop it.
URL_PASSWORD = lazy(
    r"(?<![A-Za-z0-9+.-])[0-9+.-]*[A-Za-z][A-Za-z0-9+.-]*://([^\s:/@]*):([^\s@/]+)@"
)
PORT = lazy(r"[0-9]{1,5}")
HOST_WITH_PORT = lazy(r"(?:\[[^\]\s/@]*\]|[^\s:/@?#\[\]]+):[0-9]")  # `@cache:6379`


def port_not_password(user: str, password: str, host: str) -> bool:
    """Whether a URL's `:password@` with no user is a port (`http://:8080@proxy`, a mistyped
    `host:port`): a password needs a user, or more than a port's digits (`redis://:pw@host`),
    or a host that names its own port (`redis://:12345@cache:6379`); `host` is what follows
    the `@`."""
    if user or PORT.fullmatch(password) is None or int(password) > 65535:
        return False
    return HOST_WITH_PORT.match(host) is None


class Finding(Value):
    """A secret's place in a text and what kind it is."""

    start: int
    end: int
    kind: str


def url_password(found: str) -> str:
    """The password of what the library's basic-auth pattern matched: `://user:password@`
    whole when the password is shorter than 8 characters, else the password alone."""
    if found.startswith("://") and found.endswith("@"):
        return found[3:-1].partition(":")[2]
    return found


def private_spans(text: str) -> list[Finding]:
    """`<private>…</private>` spans, tags included, as findings (memidx.private finds them)."""
    return [Finding(start, end, PRIVATE_KIND) for start, end in private_ranges(text)]


def own_findings(text: str, *, blocks: bool = False) -> Iterable[Finding]:
    """memidx's own patterns: the token ones, or (`blocks`) the private key blocks."""
    for kind, pattern in OWN_BLOCKS if blocks else OWN_PATTERNS:
        for match in pattern.finditer(text):
            if match.start() and (
                text[match.start() - 1].isalnum() or (not blocks and text[match.start() - 1] == "_")
            ):
                continue  # inside a longer word
            yield Finding(match.start(), match.end(), kind)


def merged(findings: Iterable[Finding]) -> list[Finding]:
    """Findings in order, overlapping ones joined (the first one's kind stays)."""
    out: list[Finding] = []
    for found in sorted(findings, key=lambda f: (f.start, -f.end)):
        if out and found.start < out[-1].end:
            last = out[-1]
            out[-1] = Finding(last.start, max(last.end, found.end), last.kind)
        else:
            out.append(found)
    return out


def allowed_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of the lines that carry an allow marker."""
    spans: list[tuple[int, int]] = []
    for marker in ALLOW_MARKERS:
        at = text.find(marker)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            spans.append((start, len(text) if end == -1 else end))
            at = text.find(marker, at + 1)
    return spans


def outside(findings: Sequence[Finding], spans: Sequence[tuple[int, int]]) -> list[Finding]:
    """The findings that stand on none of the spans (lines with an allow marker): each finding
    looked up among the spans sorted (each compared with every span, 1 MB of allow-marked
    lines, each with a finding, took ~15 s: quadratic)."""
    ordered = sorted(spans)
    starts = [start for start, _ in ordered]
    reach = list(accumulate((end for _, end in ordered), max))  # the furthest end so far
    return [
        f for f in findings if (at := bisect_right(starts, f.start) - 1) < 0 or reach[at] <= f.start
    ]


def redact(text: str, findings: Sequence[Finding]) -> str:
    """The text with each (merged, ordered) finding replaced by `[REDACTED:<kind>]`."""
    pieces: list[str] = []
    cursor = 0
    for found in findings:
        pieces.append(text[cursor : found.start])
        pieces.append(f"[REDACTED:{found.kind}]")
        cursor = found.end
    pieces.append(text[cursor:])
    return "".join(pieces)


class LineNumbers:
    """The 1-based lines of offsets in one text asked in order (its findings, merged): each
    counts the newlines from the offset asked before, not from the text's start (counting from
    the start for each of 19,000 findings in a 1 MB note cost 4 s of the check's 9: quadratic)."""

    __slots__ = ("at", "line", "text")

    def __init__(self, text: str) -> None:
        self.text, self.at, self.line = text, 0, 1

    def of(self, offset: int) -> int:
        """The 1-based line of `offset` (one before the last asked counts from the start)."""
        if offset < self.at:
            self.at, self.line = 0, 1
        self.line += self.text.count("\n", self.at, offset)
        self.at = offset
        return self.line
