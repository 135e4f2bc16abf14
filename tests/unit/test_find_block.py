"""Where memidx's marked block in an agent's text file ends (memidx/agents/text_install.py):
its end marker is a line of its own, however indented, never a comment or string of the
person's that quotes it."""

from __future__ import annotations

import pytest

from memidx.agents.text_install import BEGIN, END, Unended, find_block

CASES = {
    "a line of its own": (f"{BEGIN}\nx = 1\n{END}\nmine = 2\n", f"{END}\n"),
    "indented by an editor": (f"{BEGIN}\nx = 1\n  {END}  \nmine = 2\n", f"  {END}  \n"),
    "last, with no newline": (f"{BEGIN}\nx = 1\n{END}", END),
    "quoted in a comment first": (f"{BEGIN}\nx = 1 {END} took 20 s\n{END}\n", f"{END}\n"),
    "quoted in a line of its own first": (f"{BEGIN}\n{END} ends it\n{END}\n", f"{END}\n"),
}


@pytest.mark.parametrize("name", CASES)
def test_the_block_ends_at_its_end_marker_line(name: str) -> None:
    text, last = CASES[name]
    found = find_block(text)
    assert found is not None
    start, stop = found
    assert start == 0 and text[:stop].endswith(last) and text[stop:] in ("", "mine = 2\n")


def test_an_end_marker_only_quoted_is_no_end() -> None:
    with pytest.raises(Unended):
        find_block(f"{BEGIN}\nnote = 1 # {END}\n")


STARTS = {
    "first in the file": ("", f"{BEGIN}\n"),
    "indented by an editor": ('model = "o3"\n', f"  {BEGIN}\n"),
    "indented by a tab": ('model = "o3"\n', f"\t{BEGIN}\n"),
    "after a byte-order mark": ("\ufeff", f"{BEGIN}\n"),
}


@pytest.mark.parametrize("name", STARTS)
def test_the_block_starts_at_its_begin_marker_line(name: str) -> None:
    """An editor that indented the markers (the end one was read so) left the begin one
    unread: install called memidx's table the person's and refused, uninstall left it."""
    before, first = STARTS[name]
    found = find_block(f"{before}{first}x = 1\n{END}\n")
    assert found is not None and found[0] == len(before), found


def test_a_begin_marker_quoted_after_text_on_its_line_is_no_begin() -> None:
    assert find_block(f"mine = 1 # {BEGIN}\nx = 1\n{END}\n") is None
