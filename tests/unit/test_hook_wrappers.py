"""A memidx hook a person wrapped (`env -i`, `nice -n 5`, `timeout -k 1 5`, `ionice -c3`,
`exec`, `/usr/bin/env`...) is still memidx's: only `NAME=value`, `env NAME=value` and
`timeout DURATION` were read, so any other wrapper made the hook the person's and installing
again added a second memidx hook beside it. A command that does not run memidx stays the
person's, however it is wrapped. Pure: no file, no process."""

from __future__ import annotations

import json

import pytest

from memidx.agents.entries import WRITTEN_EVENTS, command_hooks, marker
from memidx.agents.settings import hook_commands, is_ours, merge_hooks, remove_hooks

MARK = marker("claude-code")
WRITTEN = WRITTEN_EVENTS["claude-code"]
MEMIDX = "/home/me/memidx/.venv/bin/memidx"
HOOK = f"{MEMIDX} agent hook claude-code Stop"


@pytest.mark.parametrize(
    "wrapper",
    [
        "env -i", "env -u NAME", "env -uNAME", "env --unset=NAME -C /tmp - A=1", "env -iu NAME",
        "nice", "nice -n 5", "nice -5", "nice --adjustment=5",
        "timeout -k 1 5", "timeout --signal=KILL 5", "timeout -sKILL --foreground 5s",
        "timeout --kill=1 .5",  # GNU takes the start of a long option
        "ionice -c3", "ionice -c 2 -n 7 -t", "nohup", "command", "command -p", "exec",
        "exec -a memidx-hook", "/usr/bin/env A=1 /usr/bin/timeout 5 /usr/bin/nice",
        "A=1 exec env -i B=2 timeout -k 1 5 nice -n 5 ionice -c3",
        "A='a b' B=\"c d\"", "env 'A=1'",  # the value quoted; env reads its words unquoted
        "command exec", "command -p nice",  # `command` runs the shell's builtins too
    ],
)  # fmt: skip
def test_a_wrapped_memidx_hook_is_memidx_s(wrapper: str) -> None:
    assert is_ours({"command": f"{wrapper} {HOOK}"}, MARK)


@pytest.mark.parametrize(
    "command",
    [
        "nice my-memidx-tool agent hook claude-code Stop",
        "echo memidx agent hook claude-code Stop",
        "/home/me/bin/memidx-backup agent hook claude-code Stop",
        "nice -n 5 /home/me/bin/memidx-backup agent hook claude-code Stop",
        "env -u memidx agent hook claude-code Stop",  # unsets `memidx`, runs `agent`
        "nice -n memidx agent hook claude-code Stop",  # niceness `memidx`, runs `agent`
        "timeout -k 5 memidx agent hook claude-code Stop",  # duration `memidx`: no command
        "timeout memidx agent hook claude-code Stop",
        f"timeout 5 A=1 {HOOK}",  # runs a program named A=1
        f"command -v {HOOK}",  # prints where it is, runs nothing
        f"ionice -p 5 {HOOK}",  # sets process 5's priority
        f"env -S '{HOOK}'",
        f"env --ignore {HOOK}",  # ambiguous to env: --ignore-environment or --ignore-signal
        f"sudo {HOOK}",
        f"nice -x {HOOK}",
        f"echo {HOOK}",
    ],
)  # fmt: skip
def test_a_wrapped_command_that_does_not_run_memidx_hook_is_the_persons(command: str) -> None:
    assert not is_ours({"command": command}, MARK)


@pytest.mark.parametrize(
    "command",
    [
        f"'A=1' {HOOK}", f'"A"=1 {HOOK}', f"A\\=1 {HOOK}", f"A=1 'B=2' {HOOK}",
        f"nice exec {HOOK}", f"timeout 5 command {HOOK}", f"env -i exec {HOOK}",
        f"exec command {HOOK}",  # execs a program named `command`
    ],
)  # fmt: skip
def test_a_command_the_shell_reads_as_another_program_s_is_the_persons(command: str) -> None:
    """shlex drops quotes: `'A=1' memidx ...` was read as an assignment, though the shell runs
    a program named `A=1`; and `exec` or `command` after `nice` is a program of that name, no
    shell builtin. Both were taken for memidx's hook: install replaced them, uninstall
    removed them."""
    assert not is_ours({"command": command}, MARK)


@pytest.mark.parametrize("wrapper", ["env -i PATH=/usr/bin", "nice -n 5", "timeout -k 1 5"])
def test_install_again_keeps_the_wrapped_hook_and_adds_no_second(wrapper: str) -> None:
    hooks = command_hooks("claude-code", {"Stop": (30, 10.0)})
    doc = json.loads(json.dumps(merge_hooks({}, hooks, MARK, WRITTEN)))
    entry = doc["hooks"]["Stop"][0]["hooks"][0]
    entry["command"] = f"{wrapper} {entry['command']}"

    again = merge_hooks(doc, hooks, MARK, WRITTEN)

    assert again == doc
    assert hook_commands(again, MARK) == [entry["command"]]
    assert remove_hooks(again, MARK, WRITTEN) == {}


@pytest.mark.parametrize(
    "command",
    [
        f"nice -n 5;evil {HOOK}", f"A=1;rm {HOOK}", f"A=1&&rm {HOOK}", f"true||{HOOK}",
        f"(cd /tmp; {HOOK})", f"{HOOK};notify-send done", f"echo x|{HOOK}",
    ],
)  # fmt: skip
def test_a_command_with_a_shell_operator_is_the_persons(command: str) -> None:
    """shlex.split keeps `;` and `&&` inside words: `nice -n 5;evil memidx ...` runs the
    person's `evil` first, and was taken for memidx's hook."""
    assert not is_ours({"command": command}, MARK)


@pytest.mark.parametrize(
    "command",
    [
        f"nice -n `mine` {HOOK}", f'nice -n "$(mine)" {HOOK}', f'A="`mine`" {HOOK}',
        f'env A="$(mine)" {HOOK}', f'A="\\\\$(mine)" {HOOK}', f"nice -n\nmine {HOOK}",
        f"A=1\nmine {HOOK}",
    ],
)  # fmt: skip
def test_a_command_substitution_or_a_newline_runs_the_persons_program(command: str) -> None:
    """A substitution runs its command in double quotes too, and a newline ends a command as
    `;` does: `nice -n "$(mine)" memidx ...` and `nice -n<newline>mine memidx ...` run the
    person's `mine`, and were taken for memidx's hook (replaced on install, removed on
    uninstall)."""
    assert not is_ours({"command": command}, MARK)


@pytest.mark.parametrize(
    "command",
    [
        f'env "A=;" {HOOK}', f"A='x;y' {HOOK}", f"A=a\\;b {HOOK}", f"A='$(x)`y`' {HOOK}",
        f'A="\\$(x)" {HOOK}', f'A="(x)\\`" {HOOK}', f"A='a\nb' {HOOK}", f'A="a\nb" {HOOK}',
    ],
)  # fmt: skip
def test_an_operator_in_quotes_is_no_operator(command: str) -> None:
    assert is_ours({"command": command}, MARK)
