"""Hits from fused document ids: the snippet, line and heading of each from its best evidence
(the words' snippet, or the best chunk when only the meaning matched)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memidx.index.store import ChunkInfo, LexicalRow, Store, VectorStore, matched_masks
from memidx.search.lexical import (
    MARK_START,
    MEANING,
    Hit,
    LexicalRanking,
    heading_at,
    match_line,
    record_title,
    snippets,
)
from memidx.search.masking import private_labels
from memidx.search.query import Terms, match_any, quote
from memidx.search.relevance import Evidence, relevance


@dataclass(frozen=True, slots=True)
class Early:
    """What the words' best documents need for their hits, read while the query embeds on
    another thread (the connection's thread is idle then): their bodies and snippets, and
    which of the query's words each has when not all of them had to match."""

    bodies: Mapping[int, str] = field(default_factory=dict[int, str])
    snippets: Mapping[int, str] = field(default_factory=dict[int, str])
    masks: Mapping[int, int] | None = None  # None: not read (every word matched, or none)

    @classmethod
    def fetch(cls, store: Store, ranking: LexicalRanking, limit: int) -> Early:
        if not ranking.rows:
            return cls()
        bodies = store.bodies([r.id for r in ranking.rows[:limit]])
        found = snippets(store, ranking.expression, ranking.terms.terms, bodies)
        masks = None
        if ranking.match != "and":
            quoted = [quote(t) for t in ranking.terms.terms]
            masks = matched_masks(store.conn, quoted, [r.id for r in ranking.rows])
        return cls(bodies, found, masks)


@dataclass(slots=True)
class HitBuilder:
    """Turn fused document ids into hits."""

    store: Store
    lexical: LexicalRanking | None
    semantic: list[tuple[int, float, int]]
    words: tuple[str, ...]
    evidence: dict[int, Evidence]
    early: Early = field(default_factory=Early)

    def build(self, fused: Sequence[tuple[int, float]]) -> list[Hit]:
        ids = [doc for doc, _ in fused]
        if not ids:
            return []
        lexical_rows = {r.id: r for r in self.lexical.rows} if self.lexical else {}
        rows = {**self.store.rows([i for i in ids if i not in lexical_rows]), **lexical_rows}
        fused = [(doc, score) for doc, score in fused if doc in rows]  # gone since ranked
        ids = [doc for doc, _ in fused]
        bm25_rank = {r.id: n for n, r in enumerate(self.lexical.rows, 1)} if self.lexical else {}
        vector_rank = {doc: n for n, (doc, _, _) in enumerate(self.semantic, 1)}
        best_chunk = {doc: chunk for doc, _, chunk in self.semantic}
        known = self.early.bodies
        bodies = {i: known[i] for i in ids if i in known}
        bodies.update(self.store.bodies([i for i in ids if i not in known]))
        snippets = self._snippets(bodies, lexical_rows)
        chunk_info = VectorStore(self.store.conn).chunk_info(
            [best_chunk[i] for i in ids if i in best_chunk]
        )
        headings = VectorStore(self.store.conn).headings(ids)
        hits: list[Hit] = []
        for rank, (doc, score) in enumerate(fused, start=1):
            row = rows[doc]
            snippet = snippets.get(doc, "")
            chunk = chunk_info.get(best_chunk.get(doc, -1))
            if MARK_START in snippet or chunk is None:
                line = row.body_line + match_line(bodies.get(doc, ""), snippet)
                heading = heading_at(headings.get(doc, []), line)
            else:
                line, heading = chunk.line, chunk.heading
                snippet = _excerpt(chunk, bodies.get(doc, ""))
            title, heading = private_labels(  # a heading inside a private span is none to show
                bodies.get(doc, ""), [row.title or record_title(row.source_kind, row.meta), heading]
            )
            ranks = {
                k: v
                for k, v in (("bm25", bm25_rank.get(doc)), ("vector", vector_rank.get(doc)))
                if v
            }
            hits.append(
                Hit(
                    rank,
                    row.source_kind,
                    row.source_ref,
                    title or "",
                    score,
                    snippet,
                    line,
                    row.tags,
                    heading,
                    row.meta,
                    ranks,
                    self.lexical.match if doc in lexical_rows and self.lexical else MEANING,
                    relevance(self.evidence[doc]),
                    self.evidence[doc],
                )
            )
        return hits

    def _snippets(
        self, bodies: dict[int, str], lexical_rows: dict[int, LexicalRow]
    ) -> dict[int, str]:
        found = {i: s for i, s in self.early.snippets.items() if i in bodies}
        if self.lexical is not None:
            matched = {i: b for i, b in bodies.items() if i in lexical_rows and i not in found}
            found.update(snippets(self.store, self.lexical.expression, self.words, matched))
        rest = {i: b for i, b in bodies.items() if i not in found}
        if rest and self.words:
            expression = match_any(Terms(self.words))
            found.update(snippets(self.store, expression, self.words, rest))
        return found


def _excerpt(chunk: ChunkInfo, body: str, size: int = 240) -> str:
    """The chunk's first words, masked before they are cut and read in `body` around them:
    a chunk cut from the middle of a key block (chunks are ~240 tokens, a key ~3,000
    characters) holds none of the marks that make the detectors see one."""
    from memidx.secrets.cuts import masked_excerpt, visible_end

    text = chunk.text.split("\n", 2 if chunk.heading else 1)[-1]
    at = body.find(text[: visible_end(text, size)])
    return masked_excerpt(text, size, within=(body, at) if at >= 0 else None)
