"""Turn user text into safe FTS5 queries (pure).

The index tokenizer is unicode61 (memidx.notes.separators): letters and digits are token
characters, everything else separates tokens. User text is split by the same rule and every term
is quoted, so no input (quotes, `-x`, `foo:bar`, `NEAR`, `*`, emoji) can reach FTS5 as query
syntax.
"""

from __future__ import annotations

from memidx.errors import UsageError
from memidx.frozen import Value
from memidx.notes.words import DIACRITICS, WORD, fold

MAX_TERMS = 32
MAX_QUERY_CHARS = 10_000  # what is searched of a query: `memidx search` and the MCP tool
NAMED_UNSEARCHED = 32  # the words not searched that an answer names (it counts them all)

# Words dropped from a query unless nothing else is left. The list was first chosen on the golden
# set; each word now stays only where data not used to choose it supports it (`make bench
# ONLY=stopwords`: BEIR NFCorpus, LoCoMo and our TIL queries). Words that name a problem (`get`
# in apt-get, `use` in "Address already in use", `make`, `keep`, `see`) are searched.
_STOPWORD_TEXT = """
about are before by did does doing getting has have he him in is like of or she that what when
where which who will would
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


class Terms(Value):  # not a dataclass: the prompt hook imports this module (clip_query)
    """The search terms of a query and what was left out of it."""

    terms: tuple[str, ...]
    dropped: tuple[str, ...] = ()
    truncated: bool = False


def tokenize(text: str) -> list[str]:
    """Split text the way the unicode61 tokenizer does, lower-cased: lowered first, so the dot
    that lower-casing gives "İ" as a combining mark is dropped as the index drops it ("i")."""
    return WORD.findall(text.lower().translate(DIACRITICS))


def clip_query(text: str, limit: int) -> str:
    """The query's first `limit` characters, ending before a word the limit would cut in two
    (its first letters would be searched as a word of their own, and fail the AND pass)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    if WORD.match(text, limit) is None:
        return head
    start = len(head)
    while start and WORD.match(head[start - 1]) is not None:
        start -= 1
    return head[:start] if start else head


def searched_part(query: str) -> str:
    """What is searched of a query: its first MAX_QUERY_CHARS characters, cut between words."""
    return clip_query(query, MAX_QUERY_CHARS)


def query_terms(text: str) -> Terms:
    """The distinct terms to search for; UsageError when the text has no searchable word."""
    tokens = list(dict.fromkeys(tokenize(text)))
    if not tokens:
        raise UsageError(
            "the query has no words to search for",
            "use letters or digits, e.g. memidx search 'file lock'",
        )
    kept = [t for t in tokens if t not in STOPWORDS] or tokens
    dropped = tuple(t for t in tokens if t not in kept)
    return Terms(tuple(kept[:MAX_TERMS]), dropped, truncated=len(kept) > MAX_TERMS)


def unsearched(text: str, terms: Terms) -> tuple[str, ...]:
    """The words of the whole query `text` that `terms`, the terms of what was searched of it,
    leave out (past MAX_QUERY_CHARS, or past the MAX_TERMS-th word), each once, in order."""
    tokens = list(dict.fromkeys(tokenize(text)))
    kept = [t for t in tokens if t not in STOPWORDS] or tokens
    searched = set(terms.terms)
    return tuple(t for t in kept if t not in searched)


def unsearched_warning(left: tuple[str, ...], *, cut: bool) -> str:
    """The one line that says which words of a long query were not searched; `cut`: the
    query was over MAX_QUERY_CHARS characters (else over MAX_TERMS words)."""
    why = f"over {MAX_QUERY_CHARS:,} characters" if cut else f"over {MAX_TERMS} distinct words"
    named = ", ".join(shown_words(w, SHOWN_WORD) for w in left[:5]) + (", ..." * (len(left) > 5))
    was = "was" if len(left) == 1 else "were"
    return (
        f"the query is {why}: {len(left)} of its words {was} not searched ({named}); "
        "search them in a query of their own"
    )


SHOWN_WORD, SHOWN_QUERY = 40, 200  # characters of a word, and of the words, a line shows


def shown_words(words: str, limit: int) -> str:
    """`words` as a line for people shows them: the first `limit` characters, then "…" (a query
    may be one 10,000-letter word, and the line that echoed it was 10,000 characters)."""
    return words if len(words) <= limit else words[: limit - 1] + "…"


def quote(term: str) -> str:
    """An FTS5 string literal for one term, folded as the index folds its text ("ή" is "η")."""
    return '"' + fold(term).replace('"', '""') + '"'


def match_all(terms: Terms) -> str:
    """FTS5 MATCH expression that requires every term (strict AND)."""
    return " AND ".join(quote(t) for t in terms.terms)


def match_any(terms: Terms) -> str:
    """FTS5 MATCH expression that accepts any term (ranked OR)."""
    return " OR ".join(quote(t) for t in terms.terms)
