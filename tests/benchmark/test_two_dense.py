"""Two embedding models in one ranking (two_dense.py): without a second model's vectors it is
memidx's hybrid search hit for hit; the second model's list counts in RRF, its cosine and rank
are the re-ranker's two last features, and a copy of the index with other documents is refused."""

from __future__ import annotations

import json
import math
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.store import Filters, Store, VectorStore
from memidx.notes.chunks import chunk_document
from memidx.search.searcher import DEPTH, Searcher
from memidx.search.vector_index import VectorIndex
from tests.benchmark.two_bench import bootstrap
from tests.benchmark.two_dense import (
    RRF_FORM,
    WIDTH,
    NotSameIndex,
    Recorded,
    TwoDense,
    same_documents,
)
from tests.helpers import FakeEmbedder, add_note

NOTES = {
    "notes/wsl.md": "# WSL memory\nvmmem grows; cap memory in wslconfig.\n",
    "notes/git.md": "# Detached head\ncheckout of a tag detaches head.\n",
    "notes/ram.md": "# Laptop RAM\nram ram ram eats everything.\n\n## Swap\nswap file.\n",
    "notes/ssh.md": "# SSH agent\nforward the agent with -A.\n",
    "notes/dns.md": "# DNS cache\nflush it with resolvectl.\n",
}
TURNS = (  # (ref, body, session, agent): the turn-context model re-orders these
    ("m1", "Melanie: which hobby did you take up this spring?", "s1", "Melanie"),
    ("c1", "Caroline: pottery, I go to a class on Sundays", "s1", "Caroline"),
    ("m2", "Melanie: my hobby is painting, I take my kids along", "s2", "Melanie"),
    ("c2", "Caroline: that sounds fun", "s2", "Caroline"),
)
QUERIES = ("vmmem", "ram swap", "wombat", "head of a tag", "memory", "Caroline's new hobby")


@pytest.fixture
def fake() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def searcher(store: Store, fake: FakeEmbedder, tmp_path: Path) -> Searcher:
    for ref, text in NOTES.items():
        add_note(store, ref, text)
    for ref, body, session, agent in TURNS:
        meta = {"session": session, "agent": agent, "ts": "2026-12-01T10:00:00Z"}
        cursor = store.conn.execute(
            "INSERT INTO documents (source_kind, source_ref, title, body, content_hash, meta) "
            "VALUES ('turn', ?, '', ?, ?, ?)",
            (ref, body, ref, json.dumps(meta)),
        )
        VectorStore(store.conn).replace_chunks(
            int(cursor.lastrowid or 0), chunk_document("", body, 0)
        )
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    return Searcher(store, config, _embedder=fake)


def second_model(store: Store, cosines: dict[str, float]) -> VectorIndex:
    """A second model's vectors: one per document, its cosine with the query vector e0."""
    docs = [ids(store)[ref] for ref in cosines]
    matrix = np.zeros((len(docs), 2), dtype=np.float32)
    for row, cosine in enumerate(cosines.values()):
        matrix[row] = (cosine, math.sqrt(1 - cosine**2))
    chunk_ids = np.arange(len(docs), dtype=np.int64)
    return VectorIndex(matrix, chunk_ids, np.asarray(docs, dtype=np.int64), 0)


E0 = np.asarray([1.0, 0.0], dtype=np.float32)
NONE = VectorIndex(np.zeros((0, 2), np.float32), np.zeros(0, np.int64), np.zeros(0, np.int64), 0)


def two(
    searcher: Searcher,
    bge: VectorIndex,
    weights: tuple[float, ...] = RRF_FORM,
    depth: int = DEPTH,
    pools: list[Recorded] | None = None,
) -> TwoDense:
    return TwoDense(searcher.store, searcher.vectors(), bge, weights, depth, pools=pools)


def ids(store: Store) -> dict[str, int]:
    return {ref: doc for doc, ref in store.conn.execute("SELECT id, source_ref FROM documents")}


def refs(dense: TwoDense, searcher: Searcher, text: str, limit: int = 10) -> list[str]:
    query = searcher.embedder().embed_query(text)
    return [h.ref for h in dense.search(text, Filters(), limit, query, E0)]


@pytest.mark.parametrize("text", QUERIES)
def test_without_second_vectors_it_is_memidx_hybrid_hit_for_hit(
    searcher: Searcher, text: str
) -> None:
    expected = searcher.search(text, Filters(), 10, "hybrid").hits
    query = searcher.embedder().embed_query(text)

    found = two(searcher, NONE).search(text, Filters(), 10, query, E0)

    assert [(h.ref, h.score, h.ranks, h.relevance) for h in found] == [
        (h.ref, h.score, h.ranks, h.relevance) for h in expected
    ]


def test_the_second_models_list_counts_in_the_fusion(searcher: Searcher) -> None:
    query = searcher.embedder().embed_query("vmmem")
    ((first, _, _),) = searcher.vectors().rank(query, 1, None)
    notes = {r: d for r, d in ids(searcher.store).items() if r.startswith("notes/")}
    doc = next(d for ref, d in notes.items() if d != first and ref != "notes/wsl.md")
    ref = next(r for r, d in ids(searcher.store).items() if d == doc)
    alone: list[Recorded] = []
    pools: list[Recorded] = []

    refs(two(searcher, NONE, depth=1, pools=alone), searcher, "vmmem", limit=1)
    refs(
        two(searcher, second_model(searcher.store, {ref: 0.9}), depth=1, pools=pools),
        searcher,
        "vmmem",
        limit=1,
    )

    assert doc not in alone[-1].docs
    assert doc in pools[-1].docs


def test_the_last_two_features_are_the_second_models_cosine_and_log_rank(
    searcher: Searcher,
) -> None:
    pools: list[Recorded] = []
    bge = second_model(searcher.store, {"notes/dns.md": 0.9, "notes/ssh.md": 0.5})
    refs(two(searcher, bge, pools=pools), searcher, "memory", limit=5)

    pool = pools[-1]
    named = {doc: ref for ref, doc in ids(searcher.store).items()}
    by_ref = {named[doc]: row for doc, row in zip(pool.docs, pool.x, strict=True)}
    assert all(len(row) == WIDTH for row in pool.x)
    depth = DEPTH  # a document the second model did not rank counts as depth + 1
    assert by_ref["notes/dns.md"][-2:] == pytest.approx((0.9, math.log(1)))
    assert by_ref["notes/ssh.md"][-2:] == pytest.approx((0.5, math.log(2)))
    assert by_ref["notes/wsl.md"][-2:] == pytest.approx((0.0, math.log(depth + 1)))


def test_the_learned_form_orders_by_its_weights(searcher: Searcher) -> None:
    bge = second_model(searcher.store, {"notes/dns.md": 0.2, "notes/ssh.md": 0.9})
    by_bge = (0.0,) * (WIDTH - 2) + (1.0, 0.0)

    assert refs(two(searcher, bge, weights=by_bge), searcher, "memory")[:2] == [
        "notes/ssh.md",
        "notes/dns.md",
    ]


def test_a_copy_with_other_documents_is_refused(tmp_path: Path) -> None:
    sql = "CREATE TABLE documents (id INTEGER PRIMARY KEY, source_kind TEXT, source_ref TEXT)"
    paths = [tmp_path / "index.sqlite", tmp_path / "copy.sqlite"]
    for path, ref in zip(paths, ("notes/a.md", "notes/b.md"), strict=True):
        with closing(sqlite3.connect(path)) as conn, conn:
            conn.execute(sql)
            conn.execute("INSERT INTO documents VALUES (1, 'note', ?)", (ref,))

    same_documents(paths[0], paths[0])
    with pytest.raises(NotSameIndex, match=r"copy\.sqlite"):
        same_documents(paths[0], paths[1])


def test_bootstrap_brackets_the_mean_difference() -> None:
    assert bootstrap(np.full(20, 0.25)) == pytest.approx((0.25, 0.25))
    low, high = bootstrap(np.asarray([0.0, 1.0] * 10))
    assert low < 0.5 < high
