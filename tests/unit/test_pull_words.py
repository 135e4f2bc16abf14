"""Whether a `git pull`'s arguments name what it pulls (memidx.git.pull_words): then its late
line is judged by FETCH_HEAD, not by its branch's upstream."""

from __future__ import annotations

import pytest

from memidx.git.pull_words import names_a_repository


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ([], False),
        (["--no-rebase"], False),
        (["-q", "--rebase=merges", "--ff-only"], False),
        (["-s", "ort", "-X", "theirs"], False),
        (["--strategy", "ort", "--strategy-option=theirs"], False),
        (["--strat", "ort"], False),  # git's unambiguous prefix
        (["-qs", "ort", "-Xtheirs", "-j4", "-Skey"], False),
        (["--depth", "3", "--upload-pack", "/opt/git-upload-pack"], False),
        (["upstream"], True),
        (["upstream", "main"], True),
        (["--no-rebase", "upstream", "main"], True),
        (["-s", "ort", "-X", "theirs", "upstream", "main"], True),
        (["-sort", "upstream"], True),  # the value in the same word
        (["-Xtheirs", "upstream"], True),
        (["--strategy=ort", "upstream"], True),
        (["-r", "upstream"], True),  # -r's value only in its word
        (["--", "upstream"], True),
        (["--"], False),
        (["-"], True),  # no option: a word
    ],
)
def test_names_a_repository(args: list[str], named: bool) -> None:
    assert names_a_repository(args) is named
