"""The words of the move's reset and of the refresh of its paths alone (index_refresh)."""

from __future__ import annotations

import pytest

from memidx.git import index_refresh
from memidx.git.index_refresh import REFRESH, parsed_version, refresh_words, reset_words


@pytest.mark.parametrize(
    ("said", "version"),
    [
        ("git version 2.39.5\n", (2, 39)),
        ("git version 2.35.1\n", (2, 35)),
        ("git version 2.45.1.windows.1\n", (2, 45)),
        ("git version 2.39.3 (Apple Git-145)\n", (2, 39)),
        ("git version 3.0.0", (3, 0)),
        ("", (0, 0)),
        ("not git at all", (0, 0)),
        ("git version two", (0, 0)),
    ],
)
def test_git_s_version_is_read_from_its_answer(said: str, version: tuple[int, int]) -> None:
    assert parsed_version(said) == version


@pytest.mark.parametrize(
    ("version", "words"),
    [
        ((2, 36), ("reset", "-q", "--no-refresh", "abc", "--", ":(literal)notes/a.md")),
        ((2, 35), ("reset", "-q", "abc", "--", ":(literal)notes/a.md")),  # -q refreshed nothing
        ((0, 0), ("reset", "-q", "abc", "--", ":(literal)notes/a.md")),  # unknown: the old words
    ],
)
def test_the_reset_skips_the_whole_refresh_where_git_has_the_option(
    monkeypatch: pytest.MonkeyPatch, version: tuple[int, int], words: tuple[str, ...]
) -> None:
    monkeypatch.setattr(index_refresh, "git_version", lambda: version)
    assert reset_words("abc", [":(literal)notes/a.md"]) == words


@pytest.mark.parametrize(
    ("args", "refresh"),
    [
        (("reset", "-q", "--no-refresh", "c", "--", "a", "b"), (*REFRESH, "--", "a", "b")),
        (("-c", "core.hooksPath=/dev/null", "reset", "-q", "c", "--", "a"), (*REFRESH, "--", "a")),
        (("reset", "-q", "c", "--"), None),  # no path: nothing reset at a path
        (("reset", "-q", "c"), None),
        (("update-index", "--force-remove", "--", "a"), None),  # no reset
        (("-c", "core.hooksPath=/dev/null", "checkout", "-q", "c", "--", "a"), None),
    ],
)
def test_the_refresh_takes_the_paths_of_a_reset_alone(
    args: tuple[str, ...], refresh: tuple[str, ...] | None
) -> None:
    assert refresh_words(args) == refresh
