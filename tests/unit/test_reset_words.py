"""The `git reset` words for a move's follow: `--no-refresh` only where git has it (2.36 on),
git's version read from `git version`'s answer as each platform's git words it."""

from __future__ import annotations

import pytest

from memidx.git import reset_words


@pytest.mark.parametrize(
    ("said", "version"),
    [
        ("git version 2.39.5\n", (2, 39)),
        ("git version 2.36.0", (2, 36)),
        ("git version 2.28.0\n", (2, 28)),
        ("git version 2.45.1.windows.1\n", (2, 45)),
        ("git version 2.39.3 (Apple Git-145)\n", (2, 39)),
        ("git version 3.0.0-rc1\n", (3, 0)),
        ("", (0, 0)),
        ("git version\n", (0, 0)),
        ("git version two.x\n", (0, 0)),
        ("not git 2.40.0\n", (0, 0)),
    ],
)
def test_the_version_git_says(said: str, version: tuple[int, int]) -> None:
    assert reset_words.parsed_version(said) == version


@pytest.mark.parametrize(
    ("version", "words"),
    [
        ((2, 39), ("reset", "-q", "--no-refresh")),
        ((2, 36), ("reset", "-q", "--no-refresh")),
        ((3, 0), ("reset", "-q", "--no-refresh")),
        ((2, 35), ("reset", "-q")),  # -q refreshed nothing yet, and --no-refresh is unknown
        ((2, 28), ("reset", "-q")),
        ((0, 0), ("reset", "-q")),  # a git that could not say: words every git takes
    ],
)
def test_no_refresh_only_where_git_has_it(
    monkeypatch: pytest.MonkeyPatch, version: tuple[int, int], words: tuple[str, ...]
) -> None:
    monkeypatch.setattr(reset_words, "git_version", lambda: version)
    assert reset_words.quiet_reset() == words
