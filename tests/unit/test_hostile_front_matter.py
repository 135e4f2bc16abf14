"""Front matter that cannot be represented is a NoteError (the note is skipped with one line),
never another exception: one such note must not stop the indexing of every other note."""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memidx.notes.note import Note, NoteError, parse_note

LIMIT = 1024 * 1024


def read(block: str) -> Note:
    return parse_note("notes/x.md", f"---\n{block}\n---\nbody\n".encode(), LIMIT)


LAUGHS = "\n".join(
    [
        "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
        *(
            f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]"
            for a, b in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)  # nine levels of nine aliases: 387,420,489 "lol"s if anything ever walks it


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        # dates and times out of range once converted to UTC (OverflowError before)
        ("created: 9999-12-31 23:59:59 -23:00", "outside the years 1-9999 in UTC"),
        ("created: 0001-01-01 00:00:00 +23:00", "outside the years 1-9999 in UTC"),
        ("title: 9999-12-31T23:00:00-01:30", "outside the years 1-9999 in UTC"),
        ("created: 2026-01-01 00:00:00 +99:00", "offset must be a timedelta"),
        ("created: !!timestamp yesterday", "cannot build"),  # AttributeError before
        # numbers no text stands for
        ("title: .nan", "not a finite number"),
        ("lang: -.inf", "not a finite number"),
        ("tags: [a, 1.0e+999]", "not a finite number"),
        ("created: " + "9" * 5000, "Exceeds the limit"),
        ("title: " + ":".join(["59"] * 3000), "too long to write"),  # base 60 (ValueError before)
        ("title: !!bool maybe", "cannot build"),  # KeyError before
        ("title: !!int twelve", "invalid literal"),
        # structures
        ("title: " + "[" * 20_000 + "]" * 20_000, "nesting depth"),
        ("tags: " + "{a: " * 5_000 + "b" + "}" * 5_000, "nesting depth"),
        (LAUGHS + "\ntags: *i", "'tags' must be a list of words"),
        (LAUGHS + "\ntitle: *i", "'title' must be text, found a list"),
        (LAUGHS + "\ntags: !!pairs [k: *i]", "pair"),  # str() of it never ended before
        ("title: !!binary aGVsbG8=", "binary data"),
        ("aliases: [!!binary aGVsbG8=]", "binary data"),
        ("tags: !!set {a, b}", "a set"),  # no order: the index would differ run to run
        ("title: !!python/object:os.system x", "could not determine a constructor"),
        # keys that are not text
        ("1: one\ntitle: t", "a key is a number, not text"),
        ("true: yes\ntitle: t", "a key is a boolean, not text"),
        ("2026-01-01: new year", "a key is a date, not text"),
        ("~: nothing", "a key is null, not text"),
        ("? !!binary aGVsbG8=\n: x", "a key is binary data"),
        ("? [a, b]\n: c", "unhashable key"),
        ('title: "\\ud800"', "invalid Unicode"),
    ],
)
def test_front_matter_that_cannot_be_represented_is_a_note_error(block: str, reason: str) -> None:
    with pytest.raises(NoteError, match="malformed front matter") as raised:
        read(block)
    assert reason in str(raised.value)


@pytest.mark.parametrize(
    ("block", "created"),
    [
        ("created: 2026-03-14T10:00:00+02:00", "2026-03-14T08:00:00Z"),
        ("created: 2026-03-14 23:30:00 -05:00", "2026-03-15T04:30:00Z"),
        ("created: 0001-01-01 12:00:00 +02:00", "0001-01-01T10:00:00Z"),  # a 4-digit year
        ("created: 9999-12-31 12:00:00 -02:00", "9999-12-31T14:00:00Z"),
        ("created: 2026-03-14", "2026-03-14"),
    ],
)
def test_timestamps_with_offsets_in_range_become_utc(block: str, created: str) -> None:
    assert read(block).created == created


def test_an_alias_bomb_in_a_field_memidx_ignores_costs_nothing() -> None:
    note = read(LAUGHS + "\ntitle: Laughs")  # the aliases share one list; nothing walks it
    assert note.title == "Laughs"


# Property: whatever YAML, structure or bytes the front matter holds, the reader returns a note
# of plain text fields or raises NoteError; nothing else escapes.


def assert_reads_or_refuses(data: bytes) -> None:
    try:
        note = parse_note("notes/x.md", data, LIMIT)
    except NoteError:
        return
    for text in (note.title, note.created or "", note.lang or "", *note.tags, *note.aliases):
        assert isinstance(text, str)
        text.encode("utf-8")  # storable: no lone surrogates


def front(block: str | bytes) -> bytes:
    raw = block.encode("utf-8", "surrogatepass") if isinstance(block, str) else block
    return b"---\n" + raw + b"\n---\nbody\n"


FIELDS = st.sampled_from(["title", "tags", "aliases", "created", "lang", "other"])
OFFSETS = st.integers(-24 * 60 + 1, 24 * 60 - 1).map(lambda m: timezone(timedelta(minutes=m)))
MOMENTS = st.datetimes(timezones=st.one_of(st.none(), OFFSETS, st.just(UTC))) | st.builds(
    datetime.replace, st.sampled_from([datetime.min, datetime.max]), tzinfo=OFFSETS
)  # the first and last moments Python has, at any offset: a step out of range in UTC
PLAIN_VALUES: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**100, max_value=10**4000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.binary(max_size=20),
    st.dates(),
    MOMENTS,
)
VALUES = st.recursive(
    PLAIN_VALUES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.text(max_size=8), st.integers(), st.dates()), inner, max_size=3
        ),
        st.frozensets(st.one_of(st.text(max_size=5), st.integers()), max_size=3).map(set),
    ),
    max_leaves=12,
)


FIELD_VALUES = st.one_of(PLAIN_VALUES, st.lists(PLAIN_VALUES, max_size=4), VALUES)
KNOWN = st.fixed_dictionaries(
    {}, optional=dict.fromkeys(("title", "tags", "aliases", "created", "lang"), FIELD_VALUES)
)
OTHERS = st.dictionaries(st.one_of(st.text(max_size=6), st.integers(), st.booleans()), VALUES)


@given(KNOWN, OTHERS)
@settings(max_examples=400, deadline=None)
def test_any_structure_yaml_can_write_reads_or_is_refused(
    known: dict[str, object], others: dict[object, object]
) -> None:
    block = cast(Any, yaml).safe_dump({**others, **known}, allow_unicode=True, sort_keys=False)
    assert_reads_or_refuses(front(block))


def zone(hours: int, minutes: int) -> str:
    return f" {hours:+03d}:{minutes:02d}"


ZONES = st.sampled_from(["", "Z", " Z"]) | st.builds(zone, st.integers(-30, 30), st.integers(0, 99))


def timestamp_text(draw: st.DrawFn) -> str:
    """A timestamp as YAML 1.1 writes one, with fields and offsets in and out of range."""
    day = f"{draw(st.integers(0, 10000)):04d}-{draw(st.integers(0, 13)):02d}-"
    day += f"{draw(st.integers(0, 32)):02d}"
    clock = f"{draw(st.integers(0, 25)):02d}:{draw(st.integers(0, 61)):02d}:00"
    return f"{day}{draw(st.sampled_from(['T', ' ', 't']))}{clock}{draw(ZONES)}"


TAGS = ["!!binary", "!!set", "!!bool", "!!int", "!!float", "!!timestamp", "!!str", "!!null",
        "!!omap", "!!pairs", "!!seq", "!!map", "!foo"]  # fmt: skip
ODD = [".nan", ".NaN", "-.inf", "+.Inf", "1e400", "1.0e+400", "0o777", "0b102", "1_000",
       "190:20:30", "~", "null", "yes", "on", "=", "<<", "2026-13-45", "2026-02-30", "'", '"',
       "&a", "*a", "[", "]", "{", "}", ",", "? ", ": ", "- ", "|", ">", "#", "---", "...", "\t",
       "%YAML 1.1", '"\\ud800"', '"\\x00"', "0x" + "f" * 40,
       ":".join(["59"] * 400)]  # fmt: skip
ATOMS = st.sampled_from(ODD)  # the last: YAML 1.1's base 60, an int of 700 digits


@st.composite
def yaml_scalar(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return timestamp_text(draw)
    if kind == 1:
        return str(
            draw(st.integers(-(10**60), 10**60)) if draw(st.booleans()) else draw(st.floats())
        )
    if kind == 2:
        return draw(ATOMS)
    if kind == 3:
        tag = draw(st.sampled_from(TAGS))
        return f"{tag} {draw(ATOMS | st.text(string.printable, max_size=8))}"
    return draw(st.text(max_size=10))


@st.composite
def yaml_block(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        key = draw(FIELDS | ATOMS)
        anchor = draw(st.sampled_from(["", "&a ", "&b "]))
        value = draw(
            st.one_of(
                yaml_scalar(),
                st.lists(yaml_scalar(), max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
                st.sampled_from(["*a", "*b", "[*a, *a]", "{k: *a}", "!!pairs [k: *a]"]),
            )
        )
        lines.append(f"{key}: {anchor}{value}")
    return "\n".join(lines)


@given(yaml_block())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_yaml_scalar_or_odd_line_reads_or_is_refused(block: str) -> None:
    assert_reads_or_refuses(front(block))


@given(st.binary(max_size=200))
@settings(max_examples=400, deadline=None)
def test_any_bytes_as_front_matter_or_as_a_note_read_or_are_refused(data: bytes) -> None:
    assert_reads_or_refuses(front(data))
    assert_reads_or_refuses(data)
