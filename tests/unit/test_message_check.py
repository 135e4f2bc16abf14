"""Reading a commit message as git may commit it: everything from the scissors line of an
edited message on is dropped; comment lines are read, since a `--cleanup` on git's command line
that keeps them never reaches the hook; lines keep their numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.githooks.message_check import (
    comment_of,
    kept_lines,
    message_findings,
)

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret
SCISSORS = "# ------------------------ >8 ------------------------"
DIFF = "diff --git a/notes/x.md b/notes/x.md\n"  # what `git commit -v` shows below the scissors
EDITED = (
    "Deploy the docs\n"
    "\n"
    "# Please enter the commit message for your changes. Lines starting\n"
    f"# with '#' will be ignored: {TOKEN}\n"
    f"{SCISSORS}\n"
    "# Do not modify or remove the line above.\n"
    "diff --git a/notes/deploy.md b/notes/deploy.md\n"
    f"+export GITHUB_TOKEN={TOKEN}\n"
)


# Comment lines were blanked when git's default cleanup was assumed; they stay now, since
# `git commit --cleanup=verbatim|whitespace` keeps them and the hook cannot see that option.
@pytest.mark.parametrize(
    ("text", "comment", "kept"),
    [
        ("subject\n# a comment\nbody\n", "#", "subject\n# a comment\nbody\n"),
        (EDITED, "#", EDITED[: EDITED.index(SCISSORS)]),  # the newline before it stays
        (f"{SCISSORS}\n{DIFF}+{TOKEN}\n", "#", ""),  # a scissors line at the top drops all
        (f"a\n; {SCISSORS[2:]}\n{DIFF}b\n", ";", "a\n"),
        (f"a\n{SCISSORS}\n{DIFF}b\n", ";", f"a\n{SCISSORS}\n{DIFF}b\n"),  # not `;`'s: kept
        (f"a\n// {SCISSORS[2:]}\n// x\n", "//", "a\n"),  # comments only: --cleanup=scissors
        (f"a\n{SCISSORS}\n\n{TOKEN}\n", "#", f"a\n{SCISSORS}\n\n{TOKEN}\n"),  # typed: read
        (f"a\n{SCISSORS}\nb\n{SCISSORS}\n# x\n{DIFF}", "#", f"a\n{SCISSORS}\nb\n"),  # -v
        (f"a\n{SCISSORS}\n# x\nSubmodule s 1..2:\n", "#", "a\n"),  # diff.submodule=log
        (f"a\n{SCISSORS} and more\nb\n", "#", f"a\n{SCISSORS} and more\nb\n"),  # not one
        (f"a\n {SCISSORS}\nb\n", "#", f"a\n {SCISSORS}\nb\n"),  # git cuts at column 0 only
    ],
)
def test_kept_lines_cuts_at_the_scissors_and_keeps_comment_lines(
    text: str, comment: str, kept: str
) -> None:
    assert kept_lines(text, comment) == kept


@pytest.mark.parametrize(
    ("settings", "text", "comment"),
    [
        ({}, "x\n", "#"),
        ({"comment": ";"}, "x\n", ";"),
        ({"comment": ""}, "x\n", "#"),
        ({"comment": "auto"}, "x\n\n; Please enter\n;\n", "#"),  # no scissors: none to cut
        ({"comment": "auto"}, "#x\n; ------------------------ >8 ------------------------\n", ";"),
        ({"comment": "auto"}, "x\n", "#"),
    ],
)
def test_comment_of_follows_core_comment_char_and_auto(
    settings: dict[str, str], text: str, comment: str
) -> None:
    assert comment_of(settings, text) == comment


def message(tmp_path: Path, text: str) -> tuple[Config, Path]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(text, encoding="utf-8")
    return Config(root=tmp_path, in_git=False), path


def test_an_edited_message_is_read_with_its_comments_and_without_the_diff_below_the_scissors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found nothing when comment lines were skipped: `git commit --cleanup=verbatim` with an
    editor commits line 4 as it is."""
    config, path = message(tmp_path, EDITED)
    monkeypatch.delenv("GIT_EDITOR", raising=False)  # git sets none when an editor ran
    found = [(line, kind, commented) for line, kind, _, commented in message_findings(config, path)]
    assert found == [(4, "github-token", True)]  # on a comment line, which the refusal says


def test_a_message_given_whole_is_read_whole_with_line_numbers_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, path = message(tmp_path, EDITED)
    monkeypatch.setenv("GIT_EDITOR", ":")  # `git commit -m/-F`: git keeps the `#` lines
    found = [(line, kind, commented) for line, kind, _, commented in message_findings(config, path)]
    assert found == [(4, "github-token", False), (8, "github-token", False)]  # no comments here


def test_a_secret_above_the_comments_is_found_on_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, path = message(tmp_path, f"Deploy\n\nwith {TOKEN}\r\n# comment\n")
    monkeypatch.delenv("GIT_EDITOR", raising=False)
    found = [found[:2] for found in message_findings(config, path)]
    assert found == [(3, "github-token")]


def test_a_latin_1_message_is_read_as_latin_1_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git commit -F` of a Latin-1 file: its no-break space read as UTF-8 was U+FFFD beside
    the password, which the commit-msg check let through (the push check refused it later)."""
    config, path = message(tmp_path, "")
    path.write_bytes(f"Deploy\n\npassword:\xa0Zk9xQ7mL2pWq8\nwith {TOKEN}\n".encode("latin-1"))
    monkeypatch.setenv("GIT_EDITOR", ":")
    found = [found[:2] for found in message_findings(config, path)]
    assert found == [(3, "secret-assignment"), (4, "github-token")]  # the token once


def test_a_latin_1_secret_holding_a_letter_utf_8_lacks_is_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its é is U+FFFD as UTF-8: both readings found it, as two secrets of one line."""
    config, path = message(tmp_path, "")
    path.write_bytes("Deploy\n\npassword=Zk9\xe9xQ7mL2pWq8\n".encode("latin-1"))
    monkeypatch.setenv("GIT_EDITOR", ":")
    found = [found[:2] for found in message_findings(config, path)]
    assert found == [(3, "secret-assignment")]
