"""Query building: user text becomes quoted FTS5 terms that can never be query syntax."""

from __future__ import annotations

import pytest

from memidx.errors import UsageError
from memidx.index.store import Filters, Store
from memidx.search.query import MAX_TERMS, match_all, match_any, query_terms, tokenize

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
