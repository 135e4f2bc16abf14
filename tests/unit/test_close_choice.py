"""The close match named for argparse's invalid choice, in each Python's words."""

from __future__ import annotations

import pytest

from memidx.cli.argument_parser import close_choice


@pytest.mark.parametrize(
    "message",
    [
        "argument COMMAND: invalid choice: 'serch' (choose from 'search', 'show', 'status')",
        "argument COMMAND: invalid choice: 'serch' (choose from search, show, status)",
    ],
)
def test_a_typo_of_a_choice_names_the_choice_meant_quoted_or_not(message: str) -> None:
    """Python 3.12.8 and 3.13.1 print the choices bare (gh-86357): the quoted ones alone were
    read, and `memidx serch` named no command there."""
    assert close_choice(message) == " (did you mean search?)"


@pytest.mark.parametrize(
    "message",
    [
        "argument COMMAND: invalid choice: 'zzz' (choose from search, show)",
        "argument -k/--limit: expected one argument",
    ],
)
def test_no_close_choice_names_none(message: str) -> None:
    assert close_choice(message) == ""
