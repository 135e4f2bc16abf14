"""What the hooks run, answered without argparse: git's hooks (`memidx hook`, the commit-msg
and pre-push secret checks) and the agents' (`memidx agent hook`) start a process at every git
operation and agent event, so they skip the parser and import only what they use."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def hook_call(argv: Sequence[str]) -> tuple[Path | None, str, list[str]] | None:
    """(directory, stage, git's arguments) when argv is exactly `[-C DIR] hook [STAGE [git's
    arguments]]`, the call every git hook makes; None for anything else, which argparse then
    handles."""
    rest = list(argv)
    directory = None
    if len(rest) >= 2 and rest[0] == "-C":
        directory, rest = Path(rest[1]), rest[2:]
    if not rest or rest[0] != "hook":
        return None  # every other command: not a reason to load the hook module
    from memidx.githooks.hook import STAGES, stage_from_environment

    if len(rest) == 1:  # pre-commit's memidx-sync (.pre-commit-hooks.yaml): one hook, 4 stages
        return directory, stage_from_environment(), []
    if rest[1] not in STAGES:
        return None
    if any(arg.startswith("-") for arg in rest[2:]):
        return None  # --help and friends
    return directory, rest[1], rest[2:]


def check_call(argv: Sequence[str], flag: str) -> tuple[Path | None, str] | None:
    """(directory, value) when argv is exactly `[-C DIR] check secrets <flag> VALUE`: the
    call of the commit-msg hook (`--message FILE`) at every commit, of the pre-push hook
    (`--push REMOTE`) at every push; None for anything else."""
    rest = list(argv)
    directory = None
    if len(rest) >= 2 and rest[0] == "-C":
        directory, rest = Path(rest[1]), rest[2:]
    if len(rest) != 4 or rest[:3] != ["check", "secrets", flag]:
        return None
    return directory, rest[3]


def fast_path(argv: Sequence[str]) -> int | None:
    """The exit code of a hook run without argparse; None for every other command."""
    agent_hook = _agenthook_call(argv)
    if agent_hook is not None:  # an agent's hook: fails open, never a usage error
        from memidx.agents.runner import run_hook_arguments

        return run_hook_arguments(*agent_hook)
    hook = hook_call(argv)
    if hook is not None:  # the git hooks' path: no argparse, nothing but what syncing needs
        from memidx.githooks.hook import run_hook

        return run_hook(*hook)
    message = check_call(argv, "--message")
    if message is not None:  # the commit-msg hook's: every commit pays for its start
        from memidx.cli.check_commands import run_message_check

        return run_message_check(message[0], Path(message[1]))
    push = check_call(argv, "--push")
    if push is not None:  # the pre-push hook's: every push pays for its start
        from memidx.cli.check_commands import run_push_check

        return run_push_check(*push)
    return None


def _agenthook_call(argv: Sequence[str]) -> tuple[list[str], Path | None] | None:
    """The arguments after `[-C DIR] agent hook`, whatever they are, and DIR: what an agent
    runs must never meet argparse, whose usage error (exit 2) some agents take for a blocking
    one."""
    rest = list(argv)
    directory = None
    if len(rest) >= 2 and rest[0] == "-C":
        directory, rest = Path(rest[1]), rest[2:]
    return (rest[2:], directory) if rest[:2] == ["agent", "hook"] else None
