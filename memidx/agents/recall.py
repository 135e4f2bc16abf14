"""Recall for a prompt: search the memory, measure each hit with the gate's signals, keep the
relevant ones not injected before in the session, and format the block. Runs in the warm
recall server (memidx/agents/recall_server.py) or, when none answers, in the hook's process."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import numpy as np
from numpy.typing import NDArray

from memidx.agents.block import (
    AROUND_CHARS,
    BUDGET,
    MAX_HITS,
    Recalled,
    recall_block,
    shown_around,
    strip_injected,
)
from memidx.agents.gate import (
    MAX_PROMPT_CHARS,
    Signal,
    exchange,
    pick,
    prompt_words,
    trivial,
    without_words,
    word_share,
)
from memidx.config import Config
from memidx.embed.embedders import Embedder, query_embedder
from memidx.frozen import Value, replace
from memidx.index.coverage import known_terms
from memidx.index.lookup_rows import documents_at, session_neighbours
from memidx.index.store import Filters, Store, VectorStore, open_store
from memidx.search.lexical import Hit
from memidx.search.query import clip_query, quote
from memidx.search.searcher import Searcher
from memidx.search.vector_index import VectorIndex

# Hits measured per prompt; the gate keeps at most MAX_HITS of them. 12, not 6: on the dev half
# of `make bench ONLY=recall` the right hit is among the first 12 for 0.922 of positives, the
# first 6 for 0.914. The 6 more hits cost the warm recall ~30 ms on this 2-core machine.
CANDIDATES = 12
# A recalled conversation turn comes with the session's turn just before and just after it:
# the answer to a question often sits in the reply to the turn that matches it (on the tuning
# side of `python -m tests.benchmark.recall_held`, the right turn among those injected went
# from 0.61 to 0.74 of LoCoMo questions with the gate off; see README, "Agents").
NEIGHBOURS = 1
NEVER_INJECTED = frozenset({"transcript"})  # whole transcripts are archives, not answers


class Candidate(Value):
    """A hit with the signals the gate judged it by."""

    key: str  # `kind:ref`, what a session remembers as injected
    recalled: Recalled
    signal: Signal
    doc_id: int = 0
    session: str = ""  # a turn's session, whose neighbouring turns come with it
    around_keys: tuple[str, ...] = ()  # the keys of the neighbouring turns it comes with


class Recall(Value):
    """What one prompt recalled: the block to inject (maybe "") and the keys in it."""

    block: str
    keys: tuple[str, ...]
    candidates: tuple[Candidate, ...] = ()


class Recaller:
    """Recall against one memory; the model loads once, the index is opened per prompt."""

    def __init__(self, config: Config, *, warm: bool = False) -> None:
        self.config = config
        self.warm = warm  # a server's: the model loads a little slower and embeds faster
        self._embedder: _LastQuery | None = None
        # the vectors and the index generation they are of, kept while it stays the same: one
        # value, so that threads of a server could read and replace it each at its own pace
        self._vectors: tuple[str, VectorIndex | None] = ("", None)

    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = _LastQuery(query_embedder(self.config, warm=self.warm))
        return self._embedder

    def recall(
        self, prompt: str, seen: Collection[str] = (), k: int = MAX_HITS, budget: int = BUDGET
    ) -> Recall:
        """The block for `prompt` (its first MAX_PROMPT_CHARS, cut between words as search
        cuts a query: a word cut in two is searched as a word of its own), leaving out hits
        whose key is in `seen`."""
        prompt = clip_query(prompt, MAX_PROMPT_CHARS)
        if trivial(prompt):
            return Recall("", ())
        found = self.candidates(prompt)
        fresh = [c for c in found if c.key not in seen]
        chosen = self.with_neighbours([fresh[i] for i in pick([c.signal for c in fresh], k)])
        chosen = unrepeated(chosen, seen)
        block = recall_block([c.recalled for c in chosen], budget, k)
        return Recall(block, shown_keys(block, chosen), tuple(found))

    def with_neighbours(self, chosen: Sequence[Candidate]) -> list[Candidate]:
        """The chosen hits, each turn with its session's neighbouring turns (NEIGHBOURS)."""
        if not NEIGHBOURS or not any(c.session for c in chosen):
            return list(chosen)
        store, _ = open_store(self.config.index_path, write=False)
        try:
            return [_around(store, c) if c.session else c for c in chosen]
        finally:
            store.conn.close()

    def candidates(self, prompt: str) -> list[Candidate]:
        """The best hits for `prompt` with their signals, best first."""
        store, _ = open_store(self.config.index_path, write=False)
        try:
            vectors_of = VectorStore(store.conn)  # a new index or any changed vector: reload
            generation = f"{vectors_of.index_id()}:{vectors_of.generation()}"
            kept, loaded = self._vectors
            searcher = Searcher(store, self.config, coarse=self.warm, _embedder=self.embedder())
            current = loaded if kept == generation else None
            searcher._vectors = current  # pyright: ignore[reportPrivateUsage]
            result = searcher.search(prompt, Filters(), CANDIDATES + 2)
            if result.engine != "bm25":
                self._vectors = (generation, searcher.vectors())
            hits = [h for h in result.hits if h.kind not in NEVER_INJECTED][:CANDIDATES]
            if not hits:
                return []
            docs = documents_at(store, [(h.kind, h.ref) for h in hits])
            vectors = searcher.vectors() if result.engine != "bm25" else None
            query = self.embedder().embed_query(prompt) if vectors is not None else None
            words = prompt_words(prompt)
            unknown = {w for w in words if not known_terms(store.conn, [quote(w)])}
            known = 1 - len(unknown) / max(1, len(words))
            exchanges = {
                key for key, (_, text) in docs.items() if key[0] == "turn" and exchange(text)
            }
            # a compaction's summary (a turn with summary_of) is prose about the work, as an
            # exchange's answer is: gated as one, not as a line of conversation
            exchanges |= {(h.kind, h.ref) for h in hits if _summary(h) and (h.kind, h.ref) in docs}
            as_notes = any(h.kind != "turn" or (h.kind, h.ref) in exchanges for h in hits)
            asked = note_view(  # a second embedding only when a hit is measured as a note
                prompt, words, unknown if as_notes else (), query, self.embedder().embed_query
            )
        finally:
            store.conn.close()
        found: list[Candidate] = []
        for hit in hits:
            doc = docs.get((hit.kind, hit.ref))
            if doc is None:
                continue
            filed = (hit.kind, hit.ref) in exchanges
            by_words, by_vector = (words, query) if hit.kind == "turn" and not filed else asked
            cosine = _best_cosine(vectors, by_vector, doc[0])
            share = word_share(by_words, doc[1])
            signal = Signal(cosine, share, _relevance(hit), hit.kind, known, filed)
            session = hit.meta.get("session") if hit.kind == "turn" else None
            key = f"{hit.kind}:{hit.ref}"
            found.append(Candidate(key, _recalled(hit), signal, doc[0], str(session or "")))
        return found


def note_view(
    prompt: str,
    words: list[str],
    unknown: Collection[str],
    query: object,
    embed_query: Callable[[str], object],
) -> tuple[list[str], object]:
    """The words and vector a note is measured against: the prompt's without the words no
    document has (a new name, a path), which cannot match and pull the prompt's vector away
    from what it asks, unless they are half of its words or more. Exchanges an agent filed are
    measured so too; lines of conversation keep the prompt's own: there, words the memory
    never heard are the sign of another conversation."""
    if not unknown or len(unknown) * 2 >= len(words) or not isinstance(query, np.ndarray):
        return words, query
    kept = [w for w in words if w not in unknown]
    return kept, embed_query(without_words(prompt, unknown))


def shown_keys(block: str, chosen: Sequence[Candidate]) -> tuple[str, ...]:
    """The keys a block injected: its hits', and their neighbours' where the block shows them."""
    if not block:
        return ()
    keys: list[str] = []
    for c in chosen:
        keys.append(c.key)
        if shown_around(block, c.recalled):
            keys += c.around_keys
    return tuple(dict.fromkeys(keys))


def unrepeated(chosen: Sequence[Candidate], seen: Collection[str]) -> list[Candidate]:
    """The chosen hits without the neighbouring turns injected before in the session (`seen`),
    chosen as hits themselves, or shown with an earlier hit: a turn already injected came
    back as a "same session" line of a later hit, though no hit is injected twice."""
    shown = {*seen, *(c.key for c in chosen)}
    kept: list[Candidate] = []
    for c in chosen:
        around = [(k, body) for k, body in zip(c.around_keys, c.recalled.around, strict=True)
                  if k not in shown]  # fmt: skip
        shown.update(k for k, _ in around)
        recalled = replace(c.recalled, around=tuple(body for _, body in around))
        kept.append(replace(c, recalled=recalled, around_keys=tuple(k for k, _ in around)))
    return kept


def _around(store: Store, candidate: Candidate) -> Candidate:
    from memidx.private import shown_private
    from memidx.secrets.cuts import masked_excerpts

    near = session_neighbours(store, candidate.doc_id, candidate.session, NEIGHBOURS)
    # masked as the hit's snippet (filed unredacted), only as far as the block shows each turn,
    # and after injected text is taken out: what it leaves is what the block shows
    texts = [shown_private(strip_injected(body)) for _, body, _ in near]  # a span: the marker
    bodies = masked_excerpts([(text, 0, len(text)) for text in texts], AROUND_CHARS - 1)
    recalled = replace(candidate.recalled, around=tuple(bodies))
    return replace(candidate, recalled=recalled, around_keys=tuple(f"turn:{r}" for r, _, _ in near))


def _best_cosine(vectors: VectorIndex | None, query: object, doc_id: int) -> float:
    """The cosine of the document's best chunk with the query (0 without vectors)."""
    if vectors is None or not isinstance(query, np.ndarray):
        return 0.0
    rows = vectors.matrix[vectors.doc_ids == doc_id]
    if not len(rows):
        return 0.0
    return float(np.max(rows @ query))


def _summary(hit: Hit) -> bool:
    return hit.kind == "turn" and bool(hit.meta.get("summary_of"))


def _relevance(hit: Hit) -> float | None:
    value = getattr(hit, "relevance", None)  # the search's calibrated score, where it has one
    return float(value) if isinstance(value, int | float) else None


def _recalled(hit: Hit) -> Recalled:
    when = hit.meta.get("ts") if hit.kind != "note" else None
    snippet = hit.snippet.replace("\x02", "").replace("\x03", "")
    return Recalled(hit.title, hit.ref, hit.line, snippet, hit.kind, str(when or ""))


class _LastQuery:
    """An embedder that remembers its last query's vector: the gate measures the cosine with
    the very vector the search just made, without embedding the prompt twice."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.dim, self.fingerprint = inner.name, inner.dim, inner.fingerprint
        self._last: tuple[str, NDArray[np.float32]] | None = None

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        if self._last is None or self._last[0] != text:
            self._last = (text, self.inner.embed_query(text))
        return self._last[1]
