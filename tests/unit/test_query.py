"""Query building: user text becomes quoted FTS5 terms that can never be query syntax."""

from __future__ import annotations

import pytest

from memidx.errors import UsageError
from memidx.index.store import Filters, Store
from memidx.search.query import (
    MAX_TERMS,
    match_all,
    match_any,
    query_terms,
    searched_part,
    tokenize,
    unsearched,
)

NASTY = [
    '"unbalanced',
    "C++",
    "a-b",
    "NEAR",
    "NEAR(a b)",
    "* wildcard",
    "foo*",
    "-x",
    "foo:bar",
    "title:windows",
    "AND OR NOT",
    "a AND",
    "^start",
    "{title body}: x",
    "((( paren",
    "🔥 fire 🔥",
    "x" * 10_000,
    " ".join(["word"] * 2_000),
    " ".join(f"w{i}" for i in range(2_000)),
    "naïve café",
    "DROP TABLE documents; --",
    "'; SELECT 1",
]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("file-locking", ["file", "locking"]),
        ("C++ templates", ["c", "templates"]),
        ("foo:bar", ["foo", "bar"]),
        ("snake_case_name", ["snake", "case", "name"]),
        (".wslconfig", ["wslconfig"]),
        ("Café NAÏVE", ["café", "naïve"]),
        ("🔥 emoji", ["emoji"]),
        ("v1.2.3", ["v1", "2", "3"]),
        ("deploy🥺fails build\ue000log", ["deploy", "fails", "build", "log"]),
    ],
)
def test_tokenize_splits_like_unicode61(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize("text", ["", "   ", "!!!", "-- * ()", "🔥🔥", '"'])
def test_text_without_words_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="no words"):
        query_terms(text)


def test_stopwords_are_dropped_unless_nothing_else_is_left() -> None:
    assert query_terms("when did he stop docker").terms == ("stop", "docker")
    assert query_terms("who is he").terms == ("who", "is", "he")


def test_long_queries_keep_a_bounded_number_of_distinct_terms() -> None:
    terms = query_terms(" ".join(f"w{i}" for i in range(500)))
    assert len(terms.terms) == MAX_TERMS
    assert terms.truncated


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("İstanbul", ("istanbul",)),  # not "i" + U+0307, as lower() gives it
        ("İZMİR İ", ("izmir", "i")),
        ("Café Ά", ("café", "ά")),  # composed letters stay as typed
    ],
)
def test_terms_are_reported_composed(text: str, terms: tuple[str, ...]) -> None:
    """ "İ" lower-cased is "i" and a combining dot above, which the JSON's terms showed."""
    assert query_terms(text).terms == terms


def test_duplicate_words_are_searched_once() -> None:
    assert query_terms("git git GIT").terms == ("git",)


def test_operator_words_are_quoted_as_plain_words() -> None:
    assert match_all(query_terms("NEAR foo")) == '"near" AND "foo"'
    assert match_any(query_terms("NEAR foo")) == '"near" OR "foo"'


@pytest.mark.parametrize("text", NASTY)
def test_no_input_raises_an_fts_error(store: Store, text: str) -> None:
    terms = query_terms(text)
    store.lexical(match_all(terms), Filters(), 5)
    store.lexical(match_any(terms), Filters(), 5)


@pytest.mark.parametrize(
    ("query", "searched", "left"),
    [
        ("sqlite lock", "sqlite lock", ()),
        ("sqlite lock sqlite busy", "sqlite lock", ("busy",)),  # "sqlite" was searched
        ("what is wal", "what is", ("wal",)),  # the stopwords searched were all it had
        ("sqlite what is", "sqlite", ()),  # stopwords past the cut: dropped anyway
    ],
)
def test_unsearched_names_the_words_past_the_cut_once_each(
    query: str, searched: str, left: tuple[str, ...]
) -> None:
    assert unsearched(query, query_terms(searched)) == left


def test_words_past_the_32nd_are_unsearched_and_a_query_is_cut_at_10000_characters() -> None:
    many = " ".join(f"w{i}" for i in range(40))
    assert unsearched(many, query_terms(many)) == tuple(f"w{i}" for i in range(32, 40))
    long = "sqlite " * 2000 + "busy"
    assert searched_part(long) == "sqlite " * 1428  # 9,996 characters: never "sqli"
    assert unsearched(long, query_terms(searched_part(long))) == ("busy",)


def test_a_line_for_people_shows_a_long_query_cut_short() -> None:
    """A query of one 100,000-letter word: the warning named it whole (a 100,000-character
    line on stderr) and "no hits for" echoed the 10,000 letters searched."""
    import io

    from memidx.cli.output import write_search
    from memidx.search.lexical import SearchResult
    from memidx.search.query import Terms, unsearched_warning

    word = "a" * 100_000
    warning = unsearched_warning((word,), cut=True)
    out = io.StringIO()
    write_search(out, SearchResult(word, Terms((word[:10_000],)), "bm25", None, ()), color=False)

    assert len(warning) < 300 and "1 of its words was not searched (aaaa" in warning
    assert "a…)" in warning
    assert len(out.getvalue()) < 300 and out.getvalue().startswith("no hits for 'aaa")
