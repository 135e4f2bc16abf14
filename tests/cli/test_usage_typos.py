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
        (["serch", "file", "lock"], "invalid choice: 'serch' (choose from "),
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


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--json", "status"], "memidx status: error: unrecognized arguments: --json (--json is an option of `memidx status`: it goes after `status`)\n"),  # noqa: E501
        (["--js", "status"], "arguments: --js (--js is an option of `memidx status`: it goes after `status`)\n"),  # noqa: E501
        (["--limit=3", "search", "lock"], "arguments: --limit=3 (--limit=3 is an option of `memidx search`: it goes after `search`)\n"),  # noqa: E501
        (["status", "-C", "."], "memidx status: error: unrecognized arguments: -C . (-C is an option of `memidx`: it goes before `status`)\n"),  # noqa: E501
    ],
)  # fmt: skip
def test_an_option_in_the_wrong_place_is_told_where_it_goes(
    repo: NotesRepo, argv: list[str], said: str
) -> None:
    """`memidx --json status` said `unrecognized arguments: --json (did you mean --json?)`:
    the option it named was the one typed, given before the command, where only memidx's own
    options are read; `memidx status -C .` named no place for `-C` at all."""
    run = repo.memidx_process(*argv)

    assert run.code == 2, run.err
    assert run.err.endswith(said), run.err
    assert "did you mean" not in run.err and "-fPIC" not in run.err, run.err


def test_a_typo_after_a_nested_command_is_told_by_that_command(repo: NotesRepo) -> None:
    """`memidx memory show --jsn` got `memidx memory`'s usage; `memory use PATH --json` was told
    `did you mean --json?`, the word it had typed."""
    show = repo.memidx_process("memory", "show", "--jsn")
    use = repo.memidx_process("memory", "use", str(repo.root), "--json")

    assert show.code == 2 and show.err.startswith("usage: memidx memory show "), show.err
    assert show.err.endswith(
        "memidx memory show: error: unrecognized arguments: --jsn (did you mean --json?)\n"
    )
    assert use.code == 2 and use.err.startswith("usage: memidx memory use "), use.err
    assert use.err.endswith("memidx memory use: error: unrecognized arguments: --json\n"), use.err


def test_an_option_of_check_before_it_is_no_file_name(repo: NotesRepo) -> None:
    """`memidx --update-baseline check secrets` checked a file named `--update-baseline` (the
    words check leaves over are file names) and updated no baseline, exit 0; a file name that
    begins with `-` after its options is still one."""
    misplaced = repo.memidx_process("--update-baseline", "check", "secrets")
    (repo.root / "-odd.md").write_text(
        "# Odd\n\nA note with an odd name, in plain English words.\n"
    )
    files = repo.memidx_process("check", "english", "--remedy", "x", "-odd.md")

    assert misplaced.code == 2, misplaced
    assert misplaced.err.endswith(
        "(--update-baseline is an option of `memidx check`: it goes after `check`)\n"
    ), misplaced.err
    assert not (repo.root / ".memidx-secrets-baseline").exists()
    assert files.code == 0, files


@pytest.mark.parametrize(
    "argv", [["status", "--"], ["memory", "show", "--"], ["status", "--json", "--"]]
)
def test_a_bare_double_dash_ends_the_options_of_a_command_without_words(
    repo: NotesRepo, argv: list[str]
) -> None:
    """`--` ends the options (POSIX), whatever follows; Python 3.11's argparse left it over for
    a command that takes no words: `memidx status --` was refused, `unrecognized arguments: --`."""
    run = repo.memidx_process(*argv)

    assert "unrecognized arguments" not in run.err, run.err
    assert run.code in (0, 1), run.err  # status's own answer (1: the index not built yet)
    assert run.out.strip(), run.err


def test_words_after_a_double_dash_are_still_refused_by_a_command_without_words(
    repo: NotesRepo,
) -> None:
    run = repo.memidx_process("status", "--", "extra")

    assert run.code == 2
    assert "unrecognized arguments: -- extra" in run.err, run.err
