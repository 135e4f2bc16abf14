"""Masking a piece cut from a longer text (a search's snippet, an excerpt): masked after the
cut, a secret the cut runs through shows its first half (or its value without the name that
made it one); masked whole first, a 1 MB transcript costs ~1 s to show 240 characters. The
detectors read the piece with REACH characters either side, and every secret that reaches into
the piece is masked whole."""

from __future__ import annotations

from collections.abc import Sequence

from memidx.secrets.detect import find_secrets
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.patterns import Finding, merged, private_spans, redact

# Wider than the longest secret the detectors match: a 4096-bit RSA key block in PEM, the
# longest, is ~3,250 characters; tokens are under 200.
REACH = 4096
# A key block is longer (an armored 4096-bit PGP key with its subkey, ~7,000 characters): a
# piece this far after a key's mark is read from that mark's line, so its BEGIN is read too.
BLOCK_REACH = 64 * 1024
# A value of one alphabet is read back this far to its name: longer than a key in base64
# (an armored PGP key's ~9,500 characters); a hostile run costs the detectors 4x REACH's.
RUN_REACH = 16 * 1024
LINE = 100  # longer than a BEGIN line
# What a key block's BEGIN line (or its END's) holds, never prose naming a private key
BLOCK_LINES = (
    "PRIVATE KEY-----",
    "PRIVATE KEY BLOCK-----",
    "PRIVATE KEY ----",
    "PuTTY-User-Key-File-",
)
WORD = lazy(r"\S+")
VALUE_CHAR = lazy(r"[A-Za-z0-9+/_-]")  # base64 (both alphabets) and hex, no `=`: a name
VALUE_RUN = lazy(r"[A-Za-z0-9+/_-]*")


def masked_pieces(pieces: Sequence[tuple[str, int, int]]) -> list[str]:
    """`text[start:end]` of each (text, start, end), every secret that overlaps it masked (in
    full, where it runs past the cut); one pass of the detectors over all the windows."""
    found = piece_findings(pieces)
    out: list[str] = []
    for (text, start, end), own in zip(pieces, found, strict=True):
        out.append(redact(text[start:end], own) if own else text[start:end])
    return out


def piece_findings(pieces: Sequence[tuple[str, int, int]]) -> list[list[Finding]]:
    """The secrets that overlap `text[start:end]` of each (text, start, end), placed in that
    piece and clipped to it; found in windows REACH wider, in one pass of the detectors."""
    windows = [
        (_window_start(text, start), min(len(text), end + REACH)) for text, start, end in pieces
    ]
    joined = "\n\n".join(text[a:b] for (text, _, _), (a, b) in zip(pieces, windows, strict=True))
    findings = find_secrets(joined, allow=True) if joined.strip() else []
    out: list[list[Finding]] = []
    at = 0  # where the window starts in `joined`
    for (text, start, end), (a, b) in zip(pieces, windows, strict=True):
        low, high = at + start - a, at + end - a
        own = [
            Finding(max(f.start, low) - low, min(f.end, high) - low, f.kind)
            for f in findings
            if f.start < high and f.end > low
        ]
        out.append(merged([*own, *_private_in(text, start, end)]))
        at += b - a + 2
    return out


def _private_in(text: str, start: int, end: int) -> list[Finding]:
    """The `<private>` spans of `text` that overlap `text[start:end]`, placed in it and
    clipped to it: read in the whole text, as a span's open tag may be far before the piece."""
    return [
        Finding(max(f.start, start) - start, min(f.end, end) - start, f.kind)
        for f in private_spans(text)
        if f.start < end and f.end > start
    ]


def _window_start(text: str, start: int) -> int:
    """Where the detectors start reading around a piece starting at `start`: REACH before it,
    or the line of the last key block mark up to BLOCK_REACH before it (a key runs longer)."""
    at = max(0, start - REACH)
    if not at:
        return 0
    floor = max(0, start - BLOCK_REACH)  # `+ LINE`: a mark on a BEGIN line REACH cuts
    mark = max(text.rfind(name, floor, at + LINE) for name in BLOCK_LINES)
    if mark >= 0:
        at = min(at, max(mark - LINE, text.rfind("\n", 0, mark) + 1))
    return _run_start(text, at, max(floor, start - RUN_REACH))


def _run_start(text: str, at: int, floor: int) -> int:
    """`at`, or when it cuts a value of one alphabet (a 10 KB key in base64 or hex, kubeconfig's
    `client-key-data:`), up to LINE before that value on its line, where its name stands, no
    further back than `floor`: read from its middle, the value was no secret to the detectors,
    and a piece of it was shown. A run of other characters (minified JSON, a line of
    assignments) is not followed back: read 64 KB wide, such a line cost seconds a piece."""
    if at <= floor or not (VALUE_CHAR.match(text, at - 1) and VALUE_CHAR.match(text, at)):
        return at
    before = VALUE_RUN.match(text[floor:at][::-1])
    begin = at - (before.end() if before else 0)
    return max(floor, text.rfind("\n", floor, begin) + 1, begin - LINE)


def masked_excerpt(
    text: str, size: int, *, cut: bool = False, within: tuple[str, int] | None = None
) -> str:
    """The first `size` characters of `text` with its whitespace collapsed, cut between words
    (`…` where it was cut), every secret that reaches into them masked. `cut`: `text` is
    itself cut from a longer one, so its last REACH characters are only read around it.
    `within`: the longer text `text` starts in and where (a chunk in its note's body), read
    around it: a chunk that starts inside a secret (a key block's middle lines) is none."""
    end = visible_end(text, size)
    if cut:
        end = min(end, max(0, len(text) - REACH))
    whole, at = within or (text, 0)
    shown = masked_pieces([(whole, at, at + end)])[0]
    return _fitted(shown, size, cut or WORD.search(text, end) is not None)


def masked_excerpts(parts: Sequence[tuple[str, int, int]], size: int) -> list[str]:
    """masked_excerpt of each `text[start:end]`, read in its whole text around it, in one pass
    of the detectors: the agents' blocks show a few hundred characters of each turn, and
    masking a 200 KB turn whole to show them cost the prompt hook 20 ms (prose) to 0.9 s (a
    turn dense with assignments) of its 1.5 s; a window of it costs 0.5 to 25 ms."""
    ends = [start + visible_end(text[start:end], size) for text, start, end in parts]
    pieces = [(text, start, stop) for (text, start, _), stop in zip(parts, ends, strict=True)]
    return [
        _fitted(shown, size, WORD.search(text, stop, end) is not None)
        for shown, (text, _, end), stop in zip(masked_pieces(pieces), parts, ends, strict=True)
    ]


def _fitted(shown: str, size: int, more: bool) -> str:
    """A masked piece, its whitespace collapsed, in `size` characters cut between words, with
    `…` where it was cut or `more` of its text follows."""
    shown = " ".join(shown.split())
    if len(shown) <= size:  # all of it, or shorter for its masks: whole words either way
        return shown + "…" if more else shown
    return shown[:size].rsplit(" ", 1)[0] + "…"


def visible_end(text: str, size: int) -> int:
    """Where the word ends that makes `text`, its whitespace collapsed, longer than `size`
    characters; the text's length when it is no longer."""
    seen = -1
    for word in WORD.finditer(text):
        seen += 1 + len(word.group())
        if seen > size:
            return word.end()
    return len(text)
