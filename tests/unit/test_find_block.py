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
