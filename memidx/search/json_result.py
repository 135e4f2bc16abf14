"""The documented JSON object of a search, schema `memidx.search/1` (README "JSON"), built once
for `memidx search --json` and the MCP server's `search` tool."""

from __future__ import annotations

from memidx.search.lexical import MARK_END, MARK_START, Hit, SearchResult

SEARCH_SCHEMA = "memidx.search/1"


def mark(snippet: str, start: str, end: str) -> str:
    return snippet.replace(MARK_START, start).replace(MARK_END, end)


def hit_json(hit: Hit) -> dict[str, object]:
    return {
        "rank": hit.rank,
        "kind": hit.kind,
        "ref": hit.ref,
        "title": hit.title,
        "score": round(hit.score, 6),
        "line": hit.line,
        "heading": hit.heading,
        "snippet": " ".join(mark(hit.snippet, "**", "**").split()),
        "tags": list(hit.tags),
        "meta": dict(hit.meta),
        "ranks": dict(hit.ranks),
        "match": hit.match,
        "relevance": None if hit.relevance is None else round(hit.relevance, 4),
    }


def search_data(result: SearchResult, timings: dict[str, float] | None = None) -> dict[str, object]:
    """The object in the README's order: `schema` first, `timings_ms` (when asked) last."""
    extra: dict[str, object] = {"timings_ms": timings} if timings else {}
    return {
        "schema": SEARCH_SCHEMA,
        "query": result.query,
        "terms": list(result.terms.terms),
        "engine": result.engine,
        "match": result.match,
        "count": len(result.hits),
        "hits": [hit_json(h) for h in result.hits],
        "warnings": list(result.warnings),
        "unsearched": list(result.unsearched),
        "unsearched_count": result.unsearched_count,
        **extra,
    }
