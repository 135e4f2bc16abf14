"""Reading a commit message as git will commit it: comment lines and everything from the
scissors line on are dropped only when git strips them, and lines keep their numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.githooks.message_check import (
    comment_of,
    git_strips,
    kept_lines,
    message_findings,
)

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret
SCISSORS = "# ------------------------ >8 ------------------------"
EDITED = (
    "Deploy the docs\n"
    "\n"
    "# Please enter the commit message for your changes. Lines starting\n"
    f"# with '#' will be ignored: {TOKEN}\n"
    f"{SCISSORS}\n"
    "# Do not modify or remove the line above.\n"
    f"+export GITHUB_TOKEN={TOKEN}\n"
)


@pytest.mark.parametrize(
    ("text", "comment", "kept"),
    [
        ("subject\n# a comment\nbody\n", "#", "subject\n\nbody\n"),
        ("subject\n; a comment\n# kept\n", ";", "subject\n\n# kept\n"),
        ("subject\n// a comment\n/ kept\n", "//", "subject\n\n/ kept\n"),
        (EDITED, "#", "Deploy the docs\n\n\n\n"),
        (f"{SCISSORS}\n+{TOKEN}\n", "#", ""),  # a scissors line at the top drops everything
        ("a\n #not a comment\n", "#", "a\n #not a comment\n"),  # git strips only at column 0
        (f"a\n{SCISSORS} and more\nb\n", "#", "a\n\nb\n"),  # no scissors line: a comment
    ],
)
def test_kept_lines_blanks_comments_and_cuts_at_the_scissors(
    text: str, comment: str, kept: str
) -> None:
    assert kept_lines(text, comment) == kept


def test_kept_lines_keeps_comments_git_keeps_and_still_cuts_at_the_scissors() -> None:
    kept = kept_lines(EDITED, "#", comments=False)
    assert kept.endswith(f"with '#' will be ignored: {TOKEN}\n")
    assert "GITHUB_TOKEN" not in kept


@pytest.mark.parametrize(
    ("settings", "text", "comment"),
    [
        ({}, "x\n", "#"),
        ({"comment": ";"}, "x\n", ";"),
        ({"comment": ""}, "x\n", "#"),
        ({"comment": "auto"}, "x\n\n; Please enter\n;\n", ";"),
        ({"comment": "auto"}, "#x\n; ------------------------ >8 ------------------------\n", ";"),
        ({"comment": "auto"}, "x\n", "#"),
    ],
)
def test_comment_of_follows_core_comment_char_and_auto(
    settings: dict[str, str], text: str, comment: str
) -> None:
    assert comment_of(settings, text) == comment


@pytest.mark.parametrize(
    ("editor", "settings", "stripped"),
    [
        (False, {}, (False, False)),  # -m, -F, a merge's own message: git keeps `#` lines
        (True, {}, (True, True)),
        (True, {"cleanup": "strip"}, (True, True)),
        (True, {"cleanup": "whitespace"}, (False, True)),
        (True, {"cleanup": "scissors"}, (False, True)),
        (True, {"cleanup": "verbatim"}, (False, True)),
    ],
)
def test_git_strips_comments_only_from_an_edited_message_under_strip(
    editor: bool, settings: dict[str, str], stripped: tuple[bool, bool]
) -> None:
    assert git_strips(editor, settings) == stripped


def message(tmp_path: Path, text: str) -> tuple[Config, Path]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(text, encoding="utf-8")
    return Config(root=tmp_path, in_git=False), path


def test_an_edited_message_is_read_without_comments_and_the_diff_below_the_scissors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, path = message(tmp_path, EDITED)
    monkeypatch.delenv("GIT_EDITOR", raising=False)  # git sets none when an editor ran
    assert list(message_findings(config, path)) == []


def test_a_message_given_whole_is_read_whole_with_line_numbers_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, path = message(tmp_path, EDITED)
    monkeypatch.setenv("GIT_EDITOR", ":")  # `git commit -m/-F`: git keeps the `#` lines
    found = [(line, kind) for line, kind, _ in message_findings(config, path)]
    assert found == [(4, "github-token"), (7, "github-token")]


def test_a_secret_above_the_comments_is_found_on_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, path = message(tmp_path, f"Deploy\n\nwith {TOKEN}\r\n# comment\n")
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    found = [(line, kind) for line, kind, _ in message_findings(config, path)]
    assert found == [(3, "github-token")]
