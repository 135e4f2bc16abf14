"""Split a note into chunks for embedding (pure): along Markdown headings, then by length so
every chunk fits the model's 256-token window, each prefixed with the note's title.

The work a note costs is bounded: a note that would need more than MAX_CHUNKS chunks has its
small sections merged with their neighbours up to the window, and when it still needs more,
only its first MAX_CHUNKS chunks are embedded (the whole text is still searched by words). A
note of 1 MiB of `## h` lines made 105,426 chunks and ~35 minutes of embedding per commit.
Ordinary notes stay one chunk per section, so a word hit names the heading it is under.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain, islice

from memidx.frozen import Value, replace
from memidx.hashes import content_hash
from memidx.notes.markdown import scan
from memidx.notes.words import WORD

# all-MiniLM-L6-v2 was trained on 256 word pieces; keep room for [CLS], [SEP] and rounding.
MAX_TOKENS = 240
# 4x the longest real note's 17 (1,874 notes of jbranchaud/til: p50 2, p99 5 chunks). 64 full
# chunks took 22 s on 2 cores shared at a load of 5, as long as ~100 ordinary chunks then.
MAX_CHUNKS = 64

# The index's words, and every other symbol (`_` too) on its own: WordPiece makes a token of
# each punctuation mark, which the index's tokenizer drops.
_PIECE = re.compile(rf"{WORD.pattern}|[^\w\s]|_")


class Chunk(Value):
    """One embeddable piece of a document."""

    seq: int
    heading: str | None
    line: int
    text: str
    text_hash: str


class Chunking(Value):
    """A document's chunks, and whether the cap left the rest of it without any."""

    chunks: tuple[Chunk, ...]
    capped: bool


class _Section(Value):
    heading: str | None
    line: int
    lines: list[str]


class _Draft(Value):
    """A chunk before numbering: its prefix (title and heading) and its text, with their cost."""

    heading: str | None
    line: int
    prefix: str
    text: str
    prefix_tokens: int  # estimates
    tokens: int  # prefix and text together


def estimate_tokens(text: str) -> int:
    """A conservative estimate of WordPiece tokens: every word or symbol is one piece, and long
    or unusual words split into several."""
    total = 0
    for piece in _PIECE.findall(text):
        if piece[0].isalnum() and len(piece) > 1:
            per_token = 2 if any(c.isdigit() for c in piece) else 4
            total += 1 + (len(piece) - 1) // per_token
        else:
            total += 1
    return total


def chunk_document(
    title: str, body: str, body_line: int = 1, max_tokens: int = MAX_TOKENS
) -> list[Chunk]:
    """The chunks of a document; `body_line` is the file line where the body starts."""
    return list(split_document(title, body, body_line, max_tokens).chunks)


def split_document(
    title: str,
    body: str,
    body_line: int = 1,
    max_tokens: int = MAX_TOKENS,
    max_chunks: int = MAX_CHUNKS,
) -> Chunking:
    """The chunks of a document, at most `max_chunks` (small sections merged first when it
    needs more), and whether some of it was left out. Only as much of a long document is
    chunked as the cap needs."""
    drafts = _drafts(title, body, body_line, max_tokens)
    kept = list(islice(drafts, max_chunks + 1))
    if len(kept) > max_chunks:
        kept = list(islice(_merged(chain(kept, drafts), max_tokens), max_chunks + 1))
    chunks = tuple(_chunk(seq, draft) for seq, draft in enumerate(kept[:max_chunks]))
    return Chunking(chunks or (_title_only(title, body_line),), len(kept) > max_chunks)


def capped_warning(shown_ref: str) -> str:
    """The warning for a note whose chunks were capped."""
    return (
        f"{shown_ref}: only its first {MAX_CHUNKS} chunks are embedded, small sections merged "
        "(split the note; all of it is still searched by words)"
    )


def _chunk(seq: int, draft: _Draft) -> Chunk:
    text = f"{draft.prefix}\n{draft.text}".strip()
    return Chunk(seq, draft.heading, draft.line, text, content_hash(text))


def _drafts(title: str, body: str, body_line: int, max_tokens: int) -> Iterator[_Draft]:
    """One draft per section, or per piece of a section over the window."""
    first = True
    for section in _sections(body):
        prefix = title if section.heading in (None, title) else f"{title}\n{section.heading}"
        prefix_tokens = estimate_tokens(prefix)
        budget = max(32, max_tokens - prefix_tokens)
        for offset, text, tokens in _pieces(section.lines, budget):
            if not text.strip() and not first:
                continue
            first = False
            line = body_line + section.line + offset
            yield _Draft(
                section.heading, line, prefix, text.strip(), prefix_tokens, prefix_tokens + tokens
            )


def _merged(drafts: Iterable[_Draft], max_tokens: int) -> Iterator[_Draft]:
    """Each run of neighbouring drafts that fits the window as one draft, under the first one's
    heading and prefix (the others' heading lines stay in the text)."""
    current: _Draft | None = None
    for draft in drafts:
        cost = draft.tokens - draft.prefix_tokens  # its lines' costs count the newlines
        if current is not None and current.tokens + cost <= max_tokens:
            current = replace(
                current, text=f"{current.text}\n{draft.text}", tokens=current.tokens + cost
            )
            continue
        if current is not None:
            yield current
        current = draft
    if current is not None:
        yield current


def _title_only(title: str, body_line: int) -> Chunk:
    return Chunk(0, None, body_line, title, content_hash(title))


def _sections(body: str) -> Iterator[_Section]:
    """Runs of lines, each starting at a heading outside fenced code (the first may not)."""
    heading: str | None = None
    start = 0
    lines: list[str] = []
    for number, (line, _, found) in enumerate(scan(body.split("\n"))):
        if found is not None:
            if any(s.strip() for s in lines):
                yield _Section(heading, start, lines)
            heading, start, lines = found.text or None, number, [line]
            continue
        lines.append(line)
    if any(s.strip() for s in lines) or heading is not None:
        yield _Section(heading, start, lines)


def _pieces(lines: list[str], budget: int) -> Iterator[tuple[int, str, int]]:
    """Greedy runs of whole paragraphs (then lines, then words) within the token budget;
    yields (line offset within the section, text, its estimated tokens)."""
    current: list[str] = []
    current_start = 0
    used = 0
    for offset, unit in _units(lines, budget):
        cost = estimate_tokens(unit) + 1
        if current and used + cost > budget:
            yield current_start, "\n".join(current), used
            current, used = [], 0
        if not current:
            current_start = offset
        current.append(unit)
        used += cost
    if current:
        yield current_start, "\n".join(current), used


def _units(lines: list[str], budget: int) -> Iterator[tuple[int, str]]:
    """Lines, with any line over the budget split into word runs that fit."""
    for offset, line in enumerate(lines):
        if estimate_tokens(line) <= budget:
            yield offset, line
            continue
        words: list[str] = []
        used = 0
        for word in line.split(" "):
            cost = estimate_tokens(word)
            if words and used + cost > budget:
                yield offset, " ".join(words)
                words, used = [], 0
            words.append(word)
            used += cost
        if words:
            yield offset, " ".join(words)
