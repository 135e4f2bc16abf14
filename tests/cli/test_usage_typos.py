"""The usage errors a person meets first, as a new user met them: a typo of a command or an
option, run as the real `memidx` in a temporary repository."""

from __future__ import annotations

import pytest

from tests.helpers import NotesRepo


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["status", "--jsn"], "memidx status: error: unrecognized arguments: --jsn (did you mean --json?)"),  # noqa: E501
        (["agent", "install", "codex", "--scpoe", "user"], "arguments: --scpoe user (did you mean --scope?)"),  # noqa: E501
        (["serch", "file", "lock"], "invalid choice: 'serch' (choose from 'search', "),
        (["memory", "shw"], "(did you mean show?)"),
    ],
)  # fmt: skip
def test_a_typo_is_told_by_its_own_command_with_the_name_meant(
    repo: NotesRepo, argv: list[str], said: str
) -> None:
    """`memidx status --jsn` was told by the top-level usage (`memidx [-h] ... COMMAND ...`)
    that "a query or other word that begins with `-` goes after `--`: memidx search -- -fPIC",
    a hint for a search it never ran; a typo of a command or option named no close match."""
    run = repo.memidx_process(*argv)

    assert run.code == 2, run.err
    assert said in run.err, run.err
    assert "did you mean" in run.err, run.err
    assert "-fPIC" not in run.err and "Traceback" not in run.err, run.err
    if argv[0] != "serch":
        assert run.err.startswith(f"usage: memidx {argv[0]} "), run.err


def test_a_typo_of_a_search_option_keeps_the_search_hint(repo: NotesRepo) -> None:
    """Only `search` takes words that begin with `-` as a query, so only it says `--`."""
    run = repo.memidx_process("search", "--jsn", "file", "lock")

    assert run.code == 2
    assert run.err.startswith("usage: memidx search "), run.err
    assert "(did you mean --json?)" in run.err
    assert "goes after `--`: memidx search -- -fPIC" in run.err


def test_agent_help_says_which_agent_install_takes_when_none_is_named(repo: NotesRepo) -> None:
    """`memidx agent install` with no agent installs Claude Code's hooks: neither the help
    nor the README said so (a new user left the agent out and got .claude/ files)."""
    run = repo.memidx_process("agent", "--help")

    assert run.code == 0
    assert "the agent (claude-code when none is named;" in " ".join(run.out.split())
