"""Compare the index the hooks maintained with a fresh rebuild of the same HEAD."""

from __future__ import annotations

import hashlib
import itertools
import sqlite3
from collections.abc import Mapping, Sequence

from memidx.embed.job import embed_missing
from memidx.haystack.frames import KINDS as RECORD_KINDS
from memidx.index.store import Filters, Store, VectorStore
from tests.helpers import FakeEmbedder

# ---------------------------------------------------------------------------------------------
# Comparing the incremental index with a fresh rebuild


# notes and the haystack's records: every kind of document the index holds
KINDS = ("note", *RECORD_KINDS)


def document_map(store: Store) -> dict[str, tuple[object, ...]]:
    return {str(row[1]): tuple(row) for kind in KINDS for row in store.document_rows(kind)}


DOC_COLUMNS = (
    "kind",
    "ref",
    "title",
    "tags",
    "aliases",
    "body",
    "body_line",
    "content_hash",
    "blob_id",
    "meta",
)


def adds_map(store: Store) -> dict[str, tuple[object, ...]]:
    """The commits of HEAD's history that added each path, with their author times."""
    rows = store.conn.execute("SELECT path, commit_id, at FROM note_adds ORDER BY 1, 2")
    return {f"{r[0]}@{r[1]}": (r[2],) for r in rows}


def chunk_map(store: Store) -> dict[str, tuple[object, ...]]:
    """(heading, line, text hash, text) of every chunk, keyed by "ref#seq"."""
    rows = store.conn.execute(
        """SELECT d.source_ref, c.seq, c.heading, c.line, c.text_hash, c.text
           FROM chunks c JOIN documents d ON d.id = c.doc_id
           ORDER BY d.source_ref, c.seq"""
    ).fetchall()
    return {f"{r[0]}#{r[1]}": (r[2], r[3], r[4], r[5]) for r in rows}


def vector_map(store: Store, model: str) -> dict[tuple[str, int], bytes]:
    """The vector of each (ref, seq), through the same load that search uses."""
    loaded = VectorStore(store.conn).load(model)
    where = {
        int(r[0]): (str(r[1]), int(r[2]))
        for r in store.conn.execute(
            "SELECT c.id, d.source_ref, c.seq FROM chunks c JOIN documents d ON d.id = c.doc_id"
        )
    }
    return {where[c]: bytes(b) for c, b in zip(loaded.chunk_ids, loaded.blobs, strict=True)}


def _keyed_diff(
    what: str, ours: Mapping[str, tuple[object, ...]], fresh: Mapping[str, tuple[object, ...]]
) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for ref in sorted(set(ours) | set(fresh)):
        if ref not in fresh:
            found.append((what, f"{ref}: only in the incremental index"))
        elif ref not in ours:
            found.append((what, f"{ref}: missing from the incremental index"))
        elif ours[ref] != fresh[ref]:
            found.append((what, f"{ref}: {ours[ref]!r} != fresh {fresh[ref]!r}"))
    return found


def compare_indexes(
    ours: Store, fresh: Store, embedder: FakeEmbedder, words: Sequence[str]
) -> list[tuple[str, str]]:
    """(what, detail) for every way `ours` differs from `fresh`; both get embedded first."""
    found: list[tuple[str, str]] = []
    docs, fresh_docs = document_map(ours), document_map(fresh)
    for ref in sorted(set(docs) | set(fresh_docs)):
        if ref in docs and ref in fresh_docs and docs[ref] != fresh_docs[ref]:
            differ = [
                f"{col}: {a!r} != fresh {b!r}"
                for col, a, b in zip(DOC_COLUMNS, docs[ref], fresh_docs[ref], strict=True)
                if a != b
            ]
            found.append(("document", f"{ref}: {'; '.join(differ)}"))
        elif ref not in fresh_docs:
            found.append(("document", f"{ref}: only in the incremental index"))
        elif ref not in docs:
            found.append(("document", f"{ref}: missing from the incremental index"))
    skips = {r: (s.blob_id, s.reason) for r, s in ours.skips("note").items()}
    fresh_skips = {r: (s.blob_id, s.reason) for r, s in fresh.skips("note").items()}
    found += _keyed_diff("skipped", skips, fresh_skips)
    found += _keyed_diff("note adds", adds_map(ours), adds_map(fresh))
    chunks = chunk_map(ours)
    found += _keyed_diff("chunk", chunks, chunk_map(fresh))
    for key, (_, _, text_hash, text) in chunks.items():
        if hashlib.sha256(str(text).encode()).hexdigest() != text_hash:
            found.append(("chunk", f"{key}: text_hash is not the sha256 of its text"))
    stray = ours.conn.execute(
        "SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)"
    ).fetchone()[0]
    if stray:
        found.append(("chunk", f"{stray} chunks belong to no document"))
    found += _compare_vectors(ours, fresh, embedder)
    found += _compare_search(ours, fresh, words)
    return found


def _compare_vectors(ours: Store, fresh: Store, embedder: FakeEmbedder) -> list[tuple[str, str]]:
    embed_missing(ours, embedder)
    embed_missing(fresh, embedder)
    vectors, fresh_vectors = vector_map(ours, embedder.name), vector_map(fresh, embedder.name)
    found: list[tuple[str, str]] = []
    for key in sorted(set(vectors) | set(fresh_vectors)):
        if vectors.get(key) != fresh_vectors.get(key):
            state = "absent" if key not in vectors else "different"
            found.append(("vector", f"{key[0]}#{key[1]}: {state} in the incremental index"))
    lacking = VectorStore(ours.conn).load(embedder.name).docs_without
    if lacking:
        found.append(("vector", f"{lacking} documents still lack a vector after embedding"))
    return found


def _compare_search(ours: Store, fresh: Store, words: Sequence[str]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    try:
        ours.conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('integrity-check')")
    except sqlite3.DatabaseError as exc:
        found.append(("fts", f"integrity-check failed: {exc}"))
    queries = [f'"{w}"' for w in words] + [f'"{a}" "{b}"' for a, b in itertools.pairwise(words)]
    queries += [f'"{words[0]}" OR "{words[-1]}"'] if words else []
    for match in queries:
        got = [(r.source_ref, round(r.score, 9)) for r in ours.lexical(match, Filters(), 100)]
        want = [(r.source_ref, round(r.score, 9)) for r in fresh.lexical(match, Filters(), 100)]
        if got != want:
            found.append(("search", f"{match}: {got} != fresh {want}"))
    return found


# ---------------------------------------------------------------------------------------------
# The driver
