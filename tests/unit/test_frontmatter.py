"""Front matter in the simple shape is read without PyYAML, and always exactly as PyYAML reads
it; anything outside that shape is left to PyYAML (read_simple returns None)."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memidx.memory.new_note import note_text, parse_tags
from memidx.notes.frontmatter import read_simple
from memidx.notes.yaml_loader import front_matter_loader

LOADER: Any = front_matter_loader()


def as_yaml(text: str) -> object:
    return yaml.load(text, Loader=LOADER)


def front(note: str) -> str:
    return note.split("---\n")[1].rstrip("\n")


@pytest.mark.parametrize(
    ("title", "tags"),
    [
        ("Docker: cache busts on COPY", ["docker", "build"]),
        ("Why the build is slow", []),
        ("L'œuvre d'un agent", ["fr"]),
        ("yes", ["no", "on"]),
        ("2024 release notes", ["1.0"]),
        ("Title with 'quotes' and # hash", ["c++", "a b"]),
    ],
)
def test_what_remember_writes_reads_as_yaml_reads_it(title: str, tags: list[str]) -> None:
    text = front(note_text(title, tags, "body", "2026-11-30"))

    simple = read_simple(text)

    assert simple is not None, text  # remember's notes never need PyYAML
    assert simple == as_yaml(text)


@pytest.mark.parametrize(
    "text",
    [
        "created: 2024-01-01",  # a date
        "draft: true",  # a boolean
        "weight: 3",  # a number
        "title: a: b",
        "title: x # comment",
        "# comment\ntitle: x",
        "title: x\ntitle: y",  # duplicate key: PyYAML keeps the last
        "meta:\n  author: me",  # nesting
        'title: "line\\nbreak"',  # an escape
        "tags:\n- a\n  - b",  # mixed indentation
        "tags: [a, 'b, c']",
        "title: 'unclosed",
        "false: x",  # the key itself is a boolean
        "k" * 1025 + ": v",  # a key longer than YAML allows
        "tags: [\u3000a]",  # not YAML whitespace, so part of the word
        "",
    ],
)
def test_anything_else_is_left_to_pyyaml(text: str) -> None:
    assert read_simple(text) is None


KEY_NAMES = ["title", "tags", "aliases", "created", "a-b", "_x", "yes", "Off", "x1", "True", "lang"]
KEYS = st.sampled_from(KEY_NAMES)
SYNTAX = "abzAZ 09:#'\"-_.,[]{}()/+\\!&*?|>%@`~éü日\t"
NOT_YAML_SPACE = "\xa0\u3000\u2003\x0b\x0c\x1f\x85\ufeff"  # Python's whitespace, or refused
TRICKY_PARTS = [*SYNTAX, *NOT_YAML_SPACE, "null", "yes", "no", "On", "true", "FALSE"]
SIMPLE_PARTS = [*"abzAZ 09'-.éü", "yes", "Null"]
TRICKY = st.sampled_from(TRICKY_PARTS)
SIMPLE = st.sampled_from(SIMPLE_PARTS)
WORD = st.one_of(st.lists(SIMPLE, max_size=6), st.lists(TRICKY, max_size=8)).map("".join)


@st.composite
def value(draw: st.DrawFn) -> str:
    word = draw(WORD)
    style = draw(st.sampled_from(["plain", "single", "double", "flow", "block", "empty"]))
    if style == "single":
        return f" '{word.replace(chr(39), chr(39) * 2) if draw(st.booleans()) else word}'"
    if style == "double":
        return f' "{word}"'
    if style == "flow":
        return f" [{', '.join(draw(st.lists(WORD, max_size=3)))}]"
    if style == "block":
        indents = st.sampled_from(["", "  ", " "])
        items = draw(st.lists(st.tuples(indents, WORD), min_size=1, max_size=3))
        return "".join(f"\n{indent}- {w}" for indent, w in items)
    if style == "empty":
        return ""
    return f" {word}"


# Hypothesis's drawing, not the two readers, is ~85 % of each example's CPU (2 ms): `make test`
# draws 500 examples (new ones each run: derandomize is off) and shrinks what fails, and the
# same shapes drawn by `random` (20 µs each) are read RANDOM_TEXTS times. 3000 examples drawn
# by Hypothesis alone (6 s) caught a reader that lost `false`, one that stripped U+3000 from
# list items and one that kept trailing spaces in about 2 runs of 3; the 30,000 random texts
# (0.6 s) caught each in 4 runs of 4. `pytest --hypothesis-profile=thorough` draws 3000.
EXAMPLES = max(500, settings().max_examples)
RANDOM_TEXTS = 30_000
# `FRONT_MATTER_SEED=<seed> pytest ...` draws a failed run's random texts again
SEED_VARIABLE = "FRONT_MATTER_SEED"


@given(st.lists(st.tuples(KEYS, value()), min_size=1, max_size=4))
@settings(max_examples=EXAMPLES, deadline=None)
def test_the_simple_reader_never_disagrees_with_pyyaml(fields: list[tuple[str, str]]) -> None:
    text = "\n".join(f"{key}:{raw}" for key, raw in fields)

    simple = read_simple(text)

    if simple is not None:
        assert simple == as_yaml(text), text


def _word(rng: random.Random) -> str:
    parts, most = (SIMPLE_PARTS, 6) if rng.random() < 0.5 else (TRICKY_PARTS, 8)
    size = min(rng.randint(0, most), rng.randint(0, most))  # short words more often, as drawn
    return "".join(rng.choice(parts) for _ in range(size))


def _value(rng: random.Random) -> str:
    """What value() draws, drawn by `random`."""
    word = _word(rng)
    style = rng.choice(["plain", "single", "double", "flow", "block", "empty"])
    if style == "single":
        return f" '{word.replace(chr(39), chr(39) * 2) if rng.random() < 0.5 else word}'"
    if style == "double":
        return f' "{word}"'
    if style == "flow":
        return f" [{', '.join(_word(rng) for _ in range(rng.randint(0, 3)))}]"
    if style == "block":
        items = [(rng.choice(["", "  ", " "]), _word(rng)) for _ in range(rng.randint(1, 3))]
        return "".join(f"\n{indent}- {w}" for indent, w in items)
    return "" if style == "empty" else f" {word}"


def test_the_simple_reader_never_disagrees_with_pyyaml_on_more_random_fields() -> None:
    # new texts each run, as Hypothesis draws; a failure names its seed, which makes them again
    seed = int(os.environ.get(SEED_VARIABLE) or random.getrandbits(32))
    rng = random.Random(seed)
    for _ in range(RANDOM_TEXTS):
        fields = [(rng.choice(KEY_NAMES), _value(rng)) for _ in range(rng.randint(1, 4))]
        text = "\n".join(f"{key}:{raw}" for key, raw in fields)

        simple = read_simple(text)

        if simple is not None:
            assert simple == as_yaml(text), f"{SEED_VARIABLE}={seed}: {text!r}"


def test_a_tag_given_with_a_line_break_is_one_line_like_the_title() -> None:
    """`remember --tags $'a\\nb'` stored a tag holding a line break."""
    assert parse_tags("deploy\nnotes, #CI\t build ,") == ["deploy notes", "CI build"]  # as typed
