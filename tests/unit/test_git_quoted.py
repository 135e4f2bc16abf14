"""Paths as git quotes them (core.quotePath), read back: `git sparse-checkout list` quotes a
cone folder with a non-ASCII letter or a `"`, and memidx share read such a list as no cone."""

from __future__ import annotations

import pytest

from memidx.git.quoted import unquoted


@pytest.mark.parametrize(
    ("said", "path"),
    [
        ("notes/my dir", "notes/my dir"),  # a space: git does not quote it
        ('"notes/caf\\303\\251"', "notes/café"),
        ('"notes/a\\"b"', 'notes/a"b'),
        ('"back\\\\slash"', "back\\slash"),
        ('"tab\\there\\nnewline"', "tab\there\nnewline"),
        ('"\\346\\227\\245\\346\\234\\254"', "日本"),
        ('"notes/\\377"', "notes/\udcff"),  # not UTF-8: kept as its byte
        ('"', '"'),
        ('"open', '"open'),
        ('"bad\\q"', '"bad\\q"'),  # no escape git makes: left as it was
        ('"a"b"', '"a"b"'),
    ],
)
def test_unquoted_reads_a_path_as_git_quoted_it(said: str, path: str) -> None:
    assert unquoted(said) == path
