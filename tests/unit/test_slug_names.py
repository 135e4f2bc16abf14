"""A note's file name from its title checks out on every machine that clones the notes."""

from __future__ import annotations

import pytest

from memidx.memory.remember import slugify


@pytest.mark.parametrize("title", ["NUL", "Con", "aux", "COM1", "lpt9", " prn "])
def test_a_windows_device_name_is_no_file_name(title: str) -> None:
    # `memidx remember --title NUL` wrote notes/nul.md, which git for Windows will not check out
    assert slugify(title) == f"{title.strip().lower()}-note"


@pytest.mark.parametrize(("title", "slug"), [("Console", "console"), ("NUL bytes", "nul-bytes")])
def test_a_longer_name_is_kept(title: str, slug: str) -> None:
    assert slugify(title) == slug
