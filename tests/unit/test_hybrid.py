"""Hybrid search on in-memory SQLite with a deterministic fake embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.errors import MemidxError
from memidx.index.store import Filters, Store
from memidx.search.fusion import Fusion
from memidx.search.searcher import Searcher
from tests.helpers import FakeEmbedder, add_note


@pytest.fixture
def fake() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def searcher(store: Store, fake: FakeEmbedder, tmp_path: Path) -> Searcher:
    add_note(store, "notes/wsl.md", "# WSL memory\nvmmem grows; cap memory in wslconfig.\n")
    add_note(store, "notes/git.md", "# Detached head\ncheckout of a tag detaches head.\n")
    add_note(
        store, "notes/ram.md", "# Laptop RAM\nram ram ram eats everything.\n\n## Swap\nswap file.\n"
    )
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    return Searcher(store, config, _embedder=fake)


def refs(searcher: Searcher, query: str, mode: str = "auto", **filters: str) -> list[str]:
    return [h.ref for h in searcher.search(query, Filters(**filters), 10, mode).hits]


def test_auto_mode_is_hybrid_when_vectors_exist(searcher: Searcher) -> None:
    result = searcher.search("vmmem", Filters(), 5)
    assert (result.engine, result.match) == ("hybrid", "and")
    assert result.hits[0].ref == "notes/wsl.md"
    assert result.hits[0].ranks == {"bm25": 1, "vector": 1}


def test_vector_mode_finds_by_embedding_alone(searcher: Searcher) -> None:
    result = searcher.search("ram everything", Filters(), 3, "vector")
    assert (result.engine, result.match) == ("vector", None)
    assert result.hits[0].ref == "notes/ram.md"
    assert "bm25" not in result.hits[0].ranks


def test_hits_found_by_meaning_alone_never_claim_a_word_match(searcher: Searcher) -> None:
    import io

    from memidx.cli.output import write_search

    result = searcher.search("wombat", Filters(), 3, "hybrid")
    shown = io.StringIO()
    write_search(shown, result, color=False)

    assert (result.engine, result.match, len(result.hits)) == ("hybrid", None, 3)
    assert all("bm25" not in hit.ranks for hit in result.hits)
    assert "no document has the words; by meaning" in shown.getvalue()
    assert "all words matched" not in shown.getvalue()


def test_hybrid_hit_shows_the_heading_of_the_matching_chunk(searcher: Searcher) -> None:
    hit = searcher.search("swap file", Filters(), 1, "hybrid").hits[0]
    assert (hit.ref, hit.heading, hit.line) == ("notes/ram.md", "Swap", 4)


def test_bm25_mode_never_touches_the_embedder(searcher: Searcher, fake: FakeEmbedder) -> None:
    calls = len(fake.calls)
    result = searcher.search("vmmem", Filters(), 5, "bm25")
    assert result.engine == "bm25" and len(fake.calls) == calls


def test_filters_apply_to_vector_hits(searcher: Searcher) -> None:
    assert refs(searcher, "ram head vmmem", "vector", path_prefix="notes/git") == ["notes/git.md"]


def test_notes_without_vectors_are_counted_in_a_warning_and_never_embedded(
    store: Store, searcher: Searcher, fake: FakeEmbedder
) -> None:
    add_note(store, "notes/new.md", "# New\nfresh words only here\n")
    calls = len(fake.calls)
    fresh = Searcher(store, searcher.config, _embedder=fake)  # as a new process would
    result = fresh.search("fresh words", Filters(), 5)
    assert len(fake.calls) == calls
    assert result.hits[0].ref == "notes/new.md"  # bm25 still covers it
    assert any(
        "1 document without vectors yet is found by words only" in w and "memidx embed" in w
        for w in result.warnings
    )


def test_vectors_of_another_model_are_never_used(store: Store, searcher: Searcher) -> None:
    other = FakeEmbedder(name="test/other", dim=32)
    config = Config(root=searcher.config.root, model=other.name)
    fresh = Searcher(store, config, _embedder=other)
    result = fresh.search("vmmem", Filters(), 5)
    assert result.engine == "bm25"
    assert any("no vectors of test/other" in w for w in result.warnings)
    with pytest.raises(MemidxError, match="no vectors of test/other"):
        fresh.search("vmmem", Filters(), 5, "vector")


def test_a_changed_model_build_drops_its_old_vectors(store: Store, fake: FakeEmbedder) -> None:
    add_note(store, "notes/a.md", "# A\nalpha\n")
    embed_missing(store, fake)
    rebuilt = FakeEmbedder(name=fake.name, dim=fake.dim)
    rebuilt.fingerprint = "fake-retrained"
    report = embed_missing(store, rebuilt)
    assert report.dropped and report.embedded == 1


def test_each_hybrid_hit_says_whether_words_or_meaning_matched(searcher: Searcher) -> None:
    """A list found by words does not make every hit a word match (issue #13)."""
    result = searcher.search("vmmem", Filters(), 3)
    assert result.match == "and"
    by = {h.ref: h.match for h in result.hits}
    assert by["notes/wsl.md"] == "and"
    assert {m for r, m in by.items() if r != "notes/wsl.md"} == {"meaning"}
    vector = searcher.search("ram everything", Filters(), 3, "vector")
    assert {h.match for h in vector.hits} == {"meaning"}
    bm25 = searcher.search("swap ram", Filters(), 3, "bm25")
    assert [h.match for h in bm25.hits] == ["and"]


def test_people_see_per_hit_how_it_matched(searcher: Searcher) -> None:
    import io

    from memidx.cli.output import search_json, write_search

    result = searcher.search("vmmem", Filters(), 3)
    out = io.StringIO()
    write_search(out, result, color=False)
    text = out.getvalue()
    assert "1 by words (every word), 2 by meaning only" in text
    assert "all words matched" not in text
    assert text.count("by meaning only") == 3  # the header and two hits
    assert '"match": "meaning"' in search_json(result)


def test_chunk_level_fusion_gives_each_note_once_with_its_best_chunk(searcher: Searcher) -> None:
    searcher.fusion = Fusion(chunks=True)
    result = searcher.search("ram swap", Filters(), 10, "hybrid")
    found = [h.ref for h in result.hits]
    assert found[0] == "notes/ram.md"
    assert len(found) == len(set(found)) == 3
    assert result.hits[0].ranks["vector"] == 1


class _Counting:
    """Wraps an embedder, counting the queries it embeds."""

    def __init__(self, inner: FakeEmbedder) -> None:
        self.inner = inner
        self.name, self.dim, self.fingerprint = inner.name, inner.dim, inner.fingerprint
        self.queries: list[str] = []

    def embed(self, texts: list[str]) -> object:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> object:
        self.queries.append(text)
        return self.inner.embed_query(text)


def test_a_query_embedded_ahead_of_its_search_is_embedded_once(
    store: Store, fake: FakeEmbedder, searcher: Searcher
) -> None:
    """A server starts the embedding as the request arrives (memidx/mcp/daemon.py): the search
    that follows takes it, and a search for other words embeds its own."""
    counting = _Counting(fake)
    searcher._embedder = counting  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue]
    expected = [h.ref for h in searcher.search("vmmem memory", Filters(), 5).hits]
    counting.queries.clear()

    searcher.embed_ahead("vmmem memory")
    assert [h.ref for h in searcher.search("vmmem memory", Filters(), 5).hits] == expected
    assert counting.queries == ["vmmem memory"]
    searcher.search("detached head", Filters(), 5)
    assert counting.queries == ["vmmem memory", "detached head"]


def test_queries_embedded_ahead_and_never_searched_are_not_kept_without_end(
    fake: FakeEmbedder, searcher: Searcher
) -> None:
    from memidx.search.searcher import AHEAD

    for n in range(AHEAD * 3):
        searcher.embed_ahead(f"query {n}")
    assert len(searcher._ahead) == AHEAD  # pyright: ignore[reportPrivateUsage]
