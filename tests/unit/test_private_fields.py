"""The front-matter fields of a note (title, tags, aliases, created, lang) never carry what a
`<private>` span covers: a value YAML reads out of a span is the span's stand-in alone (shown
as `[REDACTED:private]`), by where YAML read it, however its words stand elsewhere; a public
value beside a span is kept."""

from __future__ import annotations

import pytest

from memidx.notes.note import Note, parse_note
from memidx.private import PRIVATE_STAND_IN
from tests.cpu_cost import least_ratio

HIDDEN = PRIVATE_STAND_IN


def read(front: str) -> Note:
    return parse_note("notes/plan.md", f"---\n{front}\n---\n# Heading\nbody\n".encode(), 1 << 20)


@pytest.mark.parametrize(
    ("front", "field", "indexed"),
    [
        # its words stand in a public value's: `acme` in `acmecorp`
        (
            "tags: [acmecorp]\nsummary: <private>x\naliases: [acme]\nnote: y</private>",
            "aliases",
            (),
        ),
        # its words stand in the marker, or in a key
        ("summary: <private>x\ntags: [red, private, title]\nnote: y</private>", "tags", ()),
        # a YAML alias of a value inside a span
        (
            "summary: <private>x\nsecret: &k kestrel\nnote: y</private>\ntags: [ops, *k]",
            "tags",
            ("ops",),
        ),
    ],
)
def test_a_value_read_out_of_a_span_is_hidden_wherever_its_words_stand(
    front: str, field: str, indexed: tuple[str, ...]
) -> None:
    note = read(front)
    assert getattr(note, field) == (*indexed, HIDDEN), note


@pytest.mark.parametrize(
    "front",
    [
        'tags: "ops, <private>kestrel, acme</private>, deploy"',  # a comma list in one string
        "tags: ops, <private>kestrel, acme</private>, deploy",
        "tags: |\n  ops, <private>kestrel\n  acme</private>, deploy",
    ],
)
def test_a_span_over_the_commas_of_a_string_of_tags_hides_every_word_in_it(front: str) -> None:
    assert read(front).tags == ("ops", HIDDEN, "deploy")


@pytest.mark.parametrize(
    ("front", "title"),
    [
        ("title: >\n  Deploy\n  runbook\nsummary: <private>x</private>", "Deploy runbook"),
        ('title: "Deploy \\u0041cme"\nsummary: <private>x</private>', "Deploy Acme"),
        ("'title': 'Deploy ''runbook'''\nsummary: <private>x</private>", "Deploy 'runbook'"),
        ("summary: <private>x</private>\ntitle: |\n  Deploy\n  runbook", "Deploy\nrunbook"),
    ],
)
def test_a_public_value_beside_a_span_is_kept(front: str, title: str) -> None:
    assert read(front).title == title


@pytest.mark.parametrize(
    "front",
    [
        "created: <private>2019-05-01</private>\nlang: <private>no</private>",
        "summary: <private>x\ncreated: 2019-05-01\nlang: no\nnote: y</private>",
        "created: 2019-05-01 <private>\nlang: no",  # unclosed: to the end of the note
    ],
)
def test_a_private_created_or_lang_is_not_indexed(front: str) -> None:
    note = read(front)
    assert (note.created, note.lang) == (None, None), note


@pytest.mark.parametrize("span", ["", "summary: <private>x</private>\n"])
def test_a_note_of_many_tags_reads_in_linear_time(span: str) -> None:
    """60,000 tags in a note under the 1 MB limit: each was looked for among those before it
    (~45 s), and with a span in the front matter each in the front matter's text too. 16x
    the tags take ~16x the CPU time of the fewer read just before, quadratic ~256x (a ratio:
    a slower machine or a busy neighbour slows both)."""
    large, small = (", ".join(f"tag{i}" for i in range(n)) for n in (60_000, 3_750))
    note = read(f"{span}tags: [{large}, tag7]")
    assert len(note.tags) == 60_000 and note.tags[:2] == ("tag0", "tag1")
    least, ratios = least_ratio(
        lambda: read(f"{span}tags: [{large}, tag7]"),
        lambda: read(f"{span}tags: [{small}, tag7]"),
        below=64,
        runs=1,
    )
    assert least < 64, f"16x the tags took {ratios}x the time"
