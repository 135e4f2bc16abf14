"""The words of the move's reset and of the refresh of its paths alone (index_refresh)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git import index_copy, index_refresh
from memidx.git.index_refresh import (
    REFRESH,
    REFRESH_MOST,
    SHELL_FRESH,
    parsed_version,
    refresh_words,
    reset_words,
    shell_words,
    stat_given,
)


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


MANY = [f":(literal)notes/n{n}.md" for n in range(REFRESH_MOST + 1)]


def _each_lacks_it(_root: Path, _pathspecs: Sequence[str]) -> bool:
    return True  # stat_less's answer: each entry lacks its stat


@pytest.mark.parametrize(("count", "alone"), [(1, True), (REFRESH_MOST, True), (len(MANY), False)])
def test_more_paths_than_git_matches_cheaply_are_reset_with_the_whole_refresh(
    monkeypatch: pytest.MonkeyPatch, count: int, alone: bool
) -> None:
    """git matches each index entry against each path (status, add --refresh): 1,000 paths on
    20,000 entries took 1.4 s, the whole refresh 0.1-0.3 s, in the move's shell under the lock."""
    monkeypatch.setattr(index_refresh, "git_version", lambda: (2, 39))
    words = reset_words("abc", MANY[:count])
    assert ("--no-refresh" in words) == alone
    refresh = refresh_words(words)
    assert refresh == ((*REFRESH, "--", *MANY[:count]) if alone else None)
    asked: list[Sequence[str]] = []

    def edit_on_copy(_root: Path, _git_dir: Path, args: Sequence[str]) -> tuple[int, str]:
        asked.append(args)
        return 0, ""

    monkeypatch.setattr(index_copy, "edit_on_copy", edit_on_copy)
    monkeypatch.setattr(index_refresh, "stat_less", _each_lacks_it)
    stat_given(Path(), Path(".git"), MANY[:count])
    assert len(asked) == (1 if alone else 0)


@pytest.mark.skipif(SHELL is None, reason="the move's shell runs with a POSIX shell")
@pytest.mark.parametrize(
    ("args", "refreshed"),
    [
        (("-c", "core.hooksPath=/dev/null", "reset", "-q", "--no-refresh", "c", "--", "a b"), True),
        (("reset", "-q", "c", "--", *MANY[:REFRESH_MOST]), True),
        (("reset", "-q", "c", "--", *MANY), False),  # the reset refreshed the whole index
        (("reset", "-q", "c", "--"), False),
        (("read-tree", "-m", "-u", "2abc", "--", "x"), False),
    ],
)
def test_the_move_s_shell_refreshes_as_memidx_does(
    tmp_path: Path, args: tuple[str, ...], refreshed: bool
) -> None:
    """The shell's `fresh` (memidx killed, or its own follow failed) runs `git status` on the
    paths of a reset of no more than REFRESH_MOST paths, on $copy, as refresh_words says."""
    import subprocess

    said = tmp_path / "said"
    git = tmp_path / "git"
    git.write_text(f'#!/bin/sh\nprintf "%s|" "$GIT_INDEX_FILE" "$@" >> "{said}"\n')
    git.chmod(0o755)
    env = {"PATH": f"{tmp_path}:{os.environ['PATH']}"}
    script = f'copy=the-copy; {SHELL_FRESH} fresh "$@"'
    assert SHELL is not None
    subprocess.run([SHELL, "-c", script, "sh", *args], env=env, check=True)
    ran = said.read_text() if said.exists() else ""
    words = refresh_words(args)
    assert (words is not None) == refreshed
    assert ran == ("|".join(("the-copy", *words)) + "|" if words else "")


@pytest.mark.skipif(SHELL is None, reason="the git put on PATH is a POSIX shell script")
def test_git_s_version_is_asked_again_once_git_was_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recall or MCP server outlives an upgrade of git: a version asked once a process (git
    2.35 then) kept the reset's whole refresh, or gave a downgraded git an option it refuses."""
    git = tmp_path / "git"

    def installed(version: str) -> None:  # as a package manager does: a new file renamed in
        fresh = tmp_path / "git.new"
        fresh.write_text(f'#!/bin/sh\necho "git version {version}"\n')
        fresh.chmod(0o755)
        fresh.replace(git)

    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    installed("2.35.1")
    assert index_refresh.git_version() == (2, 35)
    assert index_refresh.git_version() == (2, 35)  # asked once: the same binary

    installed("2.45.0")

    assert index_refresh.git_version() == (2, 45)
    assert "--no-refresh" in reset_words("abc", [":(literal)notes/a.md"])


CHECKOUT = ("-c", "core.hooksPath=/dev/null", "checkout", "-q", "abc", "--")


@pytest.mark.parametrize(
    ("version", "args", "words"),
    [
        ((2, 39), (*CHECKOUT, "a"), (*CHECKOUT[:3], "--no-refresh", *CHECKOUT[3:], "a")),
        ((2, 35), (*CHECKOUT, "a"), (*CHECKOUT, "a")),  # the option refused: as it was
        ((2, 39), (*CHECKOUT, *MANY), (*CHECKOUT, *MANY)),  # the whole refresh: reset_words'
        ((2, 39), ("reset", "-q", "--no-refresh", "c", "--", "a"), None),  # as given
        ((2, 39), ("read-tree", "-m", "-u", "a", "b"), None),  # share's merge: as given
    ],
)
def test_the_move_s_shell_gets_the_no_refresh_its_redo_s_reset_takes(
    monkeypatch: pytest.MonkeyPatch,
    version: tuple[int, int],
    args: tuple[str, ...],
    words: tuple[str, ...] | None,
) -> None:
    """The shell's redo runs a checkout of notes written from memory as a reset: a plain one
    (the shell cannot ask git's version) refreshed the whole index under git's index.lock."""
    monkeypatch.setattr(index_refresh, "git_version", lambda: version)
    assert shell_words(args) == (args if words is None else words)
