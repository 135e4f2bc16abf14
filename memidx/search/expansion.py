"""The words' ranking grown by pseudo-relevance feedback (RM3, rm3.py): the first pass's best
documents give the query new words, and BM25 with each word weighted (okapi.py, from the
index's own counts) ranks the first pass's documents and the best by any word of the grown
query. Bench only: `memidx search` never imports it (lexical.rank_lexical does, lazily)."""

from __future__ import annotations

from collections.abc import Sequence

from memidx.frozen import replace
from memidx.index import documents, term_stats
from memidx.index.store import Filters, LexicalRow, Store
from memidx.notes.words import fold
from memidx.search.okapi import Saturation, idf, okapi
from memidx.search.query import Terms, quote, tokenize
from memidx.search.rm3 import Expansion, expanded_weights, relevance_model


def expanded(
    store: Store, terms: Terms, filters: Filters, first: Sequence[LexicalRow], how: Expansion
) -> list[LexicalRow]:
    """The pool (`first`, the first pass best first, and the best `how.pool` by any word of
    the grown query) ranked by BM25 of the grown query, each row with that score."""
    conn = store.conn
    feedback = list(first[: how.docs])
    if not feedback:
        return list(first)
    bodies = store.bodies([r.id for r in feedback])
    texts = [tokenize(f"{r.title or ''} {bodies.get(r.id, '')}") for r in feedback]
    written = list(dict.fromkeys(w for words in texts for w in words))
    stem_of = dict(zip(written, term_stats.stems(conn, [fold(w) for w in written]), strict=True))
    shown: dict[str, str] = {}
    for word in written:
        if stem_of[word]:
            shown.setdefault(str(stem_of[word]), word)
    stemmed = [[s for w in words if (s := stem_of[w])] for words in texts]
    model = relevance_model([(r.score, s) for r, s in zip(feedback, stemmed, strict=True)])
    stems = term_stats.stems(conn, [fold(t) for t in terms.terms])
    query = list(dict.fromkeys(s for s in stems if s))  # "statin statins": one word
    count, tokens = term_stats.totals(conn)
    having = {word: term_stats.having(conn, word) for word in model}
    weights = expanded_weights(query, model, how, shown=shown, having=having, count=count)
    grown = [quote(t) for t in terms.terms] + [quote(shown[w]) for w in weights if w in shown]
    rows = {r.id: r for r in first}
    for row in store.lexical(" OR ".join(dict.fromkeys(grown)), filters, how.pool):
        rows.setdefault(row.id, row)
    ids = list(rows)
    words = list(weights)
    scores = okapi(
        [term_stats.postings(conn, w, ids) for w in words],
        [idf(count, having.get(w) or term_stats.having(conn, w)) * weights[w] for w in words],
        term_stats.lengths(conn, ids),
        tokens / count if count else 0.0,
        documents.BM25_WEIGHTS,
        how=Saturation(),
    )
    ranked = sorted(rows.values(), key=lambda r: (-scores.get(r.id, 0.0), r.source_ref))
    return [replace(r, score=scores.get(r.id, 0.0)) for r in ranked]
