"""Split a note into chunks for embedding (pure): along Markdown headings, then by length so
every chunk fits the model's 256-token window, each prefixed with the note's title."""

from __future__ import annotations

import re
from collections.abc import Iterator

from memidx.frozen import Value
from memidx.hashes import content_hash
from memidx.notes.markdown import scan
from memidx.notes.words import WORD

# all-MiniLM-L6-v2 was trained on 256 word pieces; keep room for [CLS], [SEP] and rounding.
MAX_TOKENS = 240

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


class _Section(Value):
    heading: str | None
    line: int
    lines: list[str]


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
    chunks: list[Chunk] = []
    for section in _sections(body):
        prefix = title if section.heading in (None, title) else f"{title}\n{section.heading}"
        budget = max(32, max_tokens - estimate_tokens(prefix))
        for offset, text in _pieces(section.lines, budget):
            if not text.strip() and chunks:
                continue
            full = f"{prefix}\n{text.strip()}".strip()
            chunks.append(
                Chunk(
                    seq=len(chunks),
                    heading=section.heading,
                    line=body_line + section.line + offset,
                    text=full,
                    text_hash=content_hash(full),
                )
            )
    return chunks or [_title_only(title, body_line)]


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


def _pieces(lines: list[str], budget: int) -> Iterator[tuple[int, str]]:
    """Greedy runs of whole paragraphs (then lines, then words) within the token budget;
    yields (line offset within the section, text)."""
    current: list[str] = []
    current_start = 0
    used = 0
    for offset, unit in _units(lines, budget):
        cost = estimate_tokens(unit) + 1
        if current and used + cost > budget:
            yield current_start, "\n".join(current)
            current, used = [], 0
        if not current:
            current_start = offset
        current.append(unit)
        used += cost
    if current:
        yield current_start, "\n".join(current)


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
