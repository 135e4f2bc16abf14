"""Search as an independent tester tried to break it, on in-memory SQLite: text the index holds
is found by the same text as a query whatever its Unicode form, and a hit's line is the line of a
word that matched, in long bodies too."""

from __future__ import annotations

import unicodedata
from typing import Literal

import pytest

from memidx.index.store import Filters, Store, connect_memory
from memidx.search.lexical import LONG_BODY, lexical_search
from memidx.search.window import MARK_END, MARK_START, window
from tests.helpers import add_note

# Text as people paste it: macOS file names and some PDFs give the decomposed (NFD) form.
# The index drops the diacritics of every script, so either form finds the other.
FOLDED = [
    "naïve résumé",
    "Ångström façade",
    "Việt Nam phở",
    "İstanbul",
    "Ελληνικά γλώσσα",
    "ΐ ϋ Ώρα",
    "йогурт",
    "ёлка Йошкар-Ола їжак",
]
# unicode61 neither composes nor folds these: each form finds its own.
UNFOLDED = [
    "हिन्दी भाषा",  # Devanagari: vowel signs and virama split words in both readers
    "שָׁלוֹם",  # Hebrew points
    "東京 タワー",
    "한국어 검색",
]
Form = Literal["NFC", "NFD"]
FORMS: list[tuple[Form, Form]] = [("NFC", "NFC"), ("NFD", "NFD"), ("NFC", "NFD"), ("NFD", "NFC")]
CASES = [(text, *forms) for text in FOLDED for forms in FORMS] + [
    (text, *forms) for text in UNFOLDED for forms in FORMS[:2]
]


@pytest.mark.parametrize(("text", "note_form", "query_form"), CASES)
def test_a_note_is_found_by_its_own_words_in_either_unicode_form(
    store: Store, text: str, note_form: Form, query_form: Form
) -> None:
    """A decomposed "naïve" was searched as "nai" AND "ve": Python splits a word at a combining
    mark that unicode61 keeps in the word and drops (remove_diacritics)."""
    add_note(store, "notes/other.md", "# Other\n\nnothing alike here\n")
    add_note(store, "notes/words.md", f"# Words\n\n{unicodedata.normalize(note_form, text)}\n")

    result = lexical_search(store, unicodedata.normalize(query_form, text), Filters(), 5)

    assert [(h.ref, h.line, result.match) for h in result.hits] == [("notes/words.md", 3, "and")]


@pytest.mark.parametrize(
    ("written", "query"),
    [
        ("Καλημέρα κόσμε", "καλημερα"),  # Greek typed without its accents, as Latin is
        ("ΚΑΛΗΜΈΡΑ", "καλημέρα"),
        ("йогурт", "иогурт"),
        ("ёлка", "елка"),
    ],
)
def test_greek_and_cyrillic_accents_are_ignored_as_latin_ones_are(
    store: Store, written: str, query: str
) -> None:
    """ "ή" (U+03AE) and "η" + U+0301 did not find each other: unicode61 drops the mark of the
    decomposed form and keeps the composed letter, which it folds only in Latin."""
    add_note(store, "notes/words.md", f"# Words\n\n{written}\n")

    result = lexical_search(store, query, Filters(), 5)

    assert [(h.ref, h.line) for h in result.hits] == [("notes/words.md", 3)]
    assert f"{MARK_START}{written.split(maxsplit=1)[0]}{MARK_END}" in result.hits[0].snippet


@pytest.mark.parametrize(
    "written",
    [
        "deploy🥺fails",  # an emoji newer than unicode61's Unicode 6.1
        "deploy🫠fails",
        "deploy🚀fails",
        "deploy\U0001faf8fails",  # not yet assigned in an emoji block: tomorrow's emoji
        "deploy\ue000fails",  # private use, as icon fonts write them
        "deploy\U000f0001fails",
        "deploy👍🏽fails",  # a skin tone modifier
        "deploy₽fails",  # a currency sign newer than Unicode 6.1
    ],
)
@pytest.mark.parametrize("query", ["deploy", "fails", "deploy fails"])
def test_an_emoji_or_a_private_use_character_separates_words(
    store: Store, written: str, query: str
) -> None:
    """The index read a new emoji or a private-use character as a letter ("deploy🥺fails" one
    word) and a query as a separator: neither "deploy" nor "fails" found the note."""
    add_note(store, "notes/other.md", "# Other\n\nnothing alike here\n")
    add_note(store, "notes/glued.md", f"# Glued\n\nfirst line\n{written} now\n")

    result = lexical_search(store, query, Filters(), 5)

    assert [(h.ref, h.line, result.match) for h in result.hits] == [("notes/glued.md", 4, "and")]


@pytest.mark.parametrize("glue", ["🥺", "\ue000", "\U000f0001"])
@pytest.mark.parametrize("query", ["now", "fails"])
def test_a_snippet_marks_the_words_found_after_an_emoji_or_a_private_use_character(
    glue: str, query: str
) -> None:
    """FTS5's snippet() splits the stored text again: a word it reads differently from the
    index shifts every mark after it onto another word."""
    store = Store(connect_memory())
    add_note(store, "notes/glued.md", f"# Glued\n\nfirst line\ndeploy{glue}fails γλώσσα now\n")

    hit = lexical_search(store, query, Filters(), 5).hits[0]

    assert hit.line == 4
    marked = [w.split(MARK_END)[0] for w in hit.snippet.split(MARK_START)[1:]]
    assert marked == [query], hit.snippet


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("---\ntitle: Pangolin armour\ntags: [scales]\n---\n", 2),
        ("---\ntags: [scales]\ntitle: Pangolin armour\n---", 3),
        ("---\ntags: [scales, pangolin]\n---\n\n\n", 1),  # no title: the file's first line
    ],
)
def test_a_note_of_front_matter_alone_points_at_its_title_line(
    store: Store, text: str, line: int
) -> None:
    """The body of a note of front matter alone started one line past the file's end, and so
    did the `ref:line` of its hits."""
    add_note(store, "notes/pangolin.md", text)

    hits = lexical_search(store, "pangolin scales", Filters(), 5).hits

    assert [(h.ref, h.line) for h in hits] == [("notes/pangolin.md", line)]


def _long_body(*lines: str) -> str:
    filler = "padding words\n" * (LONG_BODY // 14 + 1)  # past LONG_BODY: the snippet is window()'s
    gap = "pad\n" * 50
    return "# Long\n\n" + filler + "".join(f"{line}\n{gap}" for line in lines)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("lock", "the file lock is held"),  # not "locksmith", which FTS5 does not match
        ("locking", "the file lock is held"),
        ("cafe", "the café opens late"),  # the index reads café as cafe
        ("CAFÉ", "the café opens late"),
        ("processes", "two processes wait"),
        ("resume", "the résumé is long"),  # an accent inside the stem
        ("naive", unicodedata.normalize("NFD", "a naïve plan")),  # a decomposed body
        ("plan", unicodedata.normalize("NFD", "a naïve plan")),  # after a decomposed word
    ],
)
def test_a_long_body_s_hit_points_at_a_line_holding_a_matched_word(
    store: Store, query: str, expected: str
) -> None:
    """The snippet of a body over LONG_BODY comes from a rough stemmer, which marked
    "locksmith" for "lock" (line and snippet on a word that did not match) and nothing for
    "cafe" in "café" (line 1, the title)."""
    body = _long_body("the locksmith came", "the café opens late", "the file lock is held")
    body += "two processes wait\nthe résumé is long\n"
    body += unicodedata.normalize("NFD", "a naïve plan\n")
    add_note(store, "notes/long.md", body)

    hit = lexical_search(store, query, Filters(), 5).hits[0]

    assert body.splitlines()[hit.line - 1] == expected


@pytest.mark.parametrize(
    ("created", "since", "until", "found"),
    [
        ("2026-03-14 10:00", "2026-03-14T00:00:00Z", None, True),  # YAML reads it as text
        ("2026-03-14 10:00", "2026-03-14T10:30:00Z", None, False),
        ('"2026-03-14T10:00:00+02:00"', "2026-03-14T09:00:00Z", None, False),  # 08:00 in UTC
        ('"2026-03-14T10:00:00+02:00"', None, "2026-03-14T09:00:00Z", True),
        ("'2026-03-14T10:00Z'", "2026-03-14T10:00:00Z", "2026-03-14T10:00:01Z", True),
        ('"2026-03-14"', "2026-03-14T23:00:00Z", "2026-03-15T00:00:00Z", True),  # a whole day
    ],
)
def test_a_time_written_as_text_in_created_is_filtered_as_that_time(
    store: Store, created: str, since: str | None, until: str | None, found: bool
) -> None:
    """`created: 2026-03-14 10:00` (no seconds: text to YAML) sorted before that day's
    midnight, so `--since 2026-03-14` left the note out; a quoted timestamp with an offset was
    compared as written, not in UTC."""
    add_note(store, "notes/dated.md", f"---\ntitle: Dated\ncreated: {created}\n---\n\nheron\n")

    hits = lexical_search(store, "heron", Filters(since=since, until=until), 5).hits

    assert [h.ref for h in hits] == (["notes/dated.md"] if found else [])


def test_a_long_body_s_snippet_opens_on_a_whole_word() -> None:
    """The words before the match are read back a fixed number of characters, which cut a long
    word (a hash) in two: the snippet opened on its tail."""
    digest = "0123456789abcdef" * 4
    body = " ".join([digest] * 30) + " the lock is held"

    snippet = window(body, ["lock"])

    assert snippet.startswith("…") and snippet[1:].split()[0] == digest
    assert f"{MARK_START}lock{MARK_END}" in snippet


def test_a_long_body_s_snippet_never_opens_inside_a_decomposed_word() -> None:
    """The read-back could begin at a combining mark of a decomposed (NFD) word, or just after
    one: the snippet then opened on the word's tail ("…veté" of "naïveté")."""
    word = unicodedata.normalize("NFD", "naïveté")
    opened: set[str] = set()
    for pad in range(0, 420):  # every place the read-back can begin at, before the match
        snippet = window(f"{'x ' * 5}{word} {'y' * pad} the lock is held", ["lock"])
        opened.add(snippet.removeprefix("…").split()[0])

    assert opened <= {"x", word, "the", f"{MARK_START}lock{MARK_END}"} | {
        "y" * pad for pad in range(420)
    }, opened - {"y" * pad for pad in range(420)}
