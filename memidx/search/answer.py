"""One search as `memidx search` and the MCP server answer it: the words-only path when asked or
when vector search is not installed, the searcher otherwise, then the warnings every answer
carries (index behind HEAD, records whose segment is gone)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from memidx.config import Config
from memidx.errors import VECTORS_HINT, MemidxError
from memidx.index.head import behind_head
from memidx.index.store import Filters, Store, VectorStore, snapshot
from memidx.remedies import run_hint
from memidx.search.front_line import point_at_front_matter
from memidx.search.lexical import SearchResult, lexical_search
from memidx.search.present import drop_vanished
from memidx.search.query import NAMED_UNSEARCHED, searched_part, unsearched, unsearched_warning
from memidx.search.timing import Stopwatch

if TYPE_CHECKING:
    from memidx.search.searcher import Searcher


def without_vectors() -> str | None:
    """The warning for `--mode auto` when memidx was installed without its vectors extra (numpy
    looked for, not imported: ~0.1 s of CPU a search without vectors never needs)."""
    from importlib.util import find_spec

    if find_spec("numpy") is not None:
        return None
    return (
        "vector search is not installed (numpy is missing): searching by words only "
        f"({VECTORS_HINT})"
    )


def no_vectors(store: Store, config: Config) -> str | None:
    """The warning for `--mode auto` when the index holds no vectors of the model: the words-only
    answer the searcher gives then (Searcher._vectors_usable), without importing numpy."""
    if VectorStore(store.conn).model(config.model) is not None:
        return None
    return words_only(vectors_missing(config))


def vectors_missing(config: Config) -> MemidxError:
    """The error of an index that holds no vectors of `config`'s model, with what makes them."""
    return MemidxError(f"no vectors of {config.model} in the index", run_hint(config.root, "embed"))


def words_only(error: MemidxError) -> str:
    """The warning of a search that answers by words only because of `error`."""
    return f"{error.message}: searching by words only ({error.hint})"


def answer(
    store: Store,
    config: Config,
    query: str,
    filters: Filters,
    limit: int,
    *,
    mode: str,
    searcher: Searcher | None,
    missing: str | None = None,
    watch: Stopwatch | None = None,
) -> SearchResult:
    """Search `store` for the first MAX_QUERY_CHARS of `query`: by words alone without a searcher
    (no numpy, no model), else in `mode`; `missing` is without_vectors()'s warning, added to a
    words-only answer. The words of `query` left out are named in a warning and the answer."""
    text = searched_part(query)
    if searcher is None:
        with (watch or Stopwatch()).phase("sql"), snapshot(store.conn):
            result = lexical_search(store, text, filters, limit)
        if missing:
            result = replace(result, warnings=(*result.warnings, missing))
    else:
        result = searcher.search(text, filters, limit, mode)
    stale = behind_head(config, store)
    result = point_at_front_matter(drop_vanished(result, config.root), config.root)
    if stale:
        result = replace(result, warnings=(stale, *result.warnings))
    return _naming_unsearched(result, query)


def _naming_unsearched(result: SearchResult, query: str) -> SearchResult:
    """`result` with the words of `query` it did not search, counted, named and warned of."""
    left = unsearched(query, result.terms)
    if not left:
        return result
    warning = unsearched_warning(left, cut=len(result.query) < len(query))
    return replace(
        result,
        unsearched=left[:NAMED_UNSEARCHED],
        unsearched_count=len(left),
        warnings=(*result.warnings, warning),
    )
