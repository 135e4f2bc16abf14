"""A note's file name from its title checks out on every machine that clones the notes."""

from __future__ import annotations

import pytest

from memidx.memory.new_note import slugify


@pytest.mark.parametrize("title", ["NUL", "Con", "aux", "COM1", "lpt9", " prn "])
def test_a_windows_device_name_is_no_file_name(title: str) -> None:
    # `memidx remember --title NUL` wrote notes/nul.md, which git for Windows will not check out
    assert slugify(title) == f"{title.strip().lower()}-note"


@pytest.mark.parametrize(("title", "slug"), [("Console", "console"), ("NUL bytes", "nul-bytes")])
def test_a_longer_name_is_kept(title: str, slug: str) -> None:
    assert slugify(title) == slug


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Straße", "strasse"),  # was strae: the letters no decomposition makes ASCII went
        ("Ærø", "aero"),
        ("Łódź", "lodz"),
        ("Đakovo", "dakovo"),
        ("Þór Œuvre", "thor-oeuvre"),
        ("Ǿre", "ore"),  # ø with an acute: decomposed, then spelled
        ("café naïve", "cafe-naive"),  # decomposed as before
    ],
)
def test_latin_letters_are_spelled_not_dropped(title: str, slug: str) -> None:
    assert slugify(title) == slug
