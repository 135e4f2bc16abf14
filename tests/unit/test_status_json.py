"""`memidx status --json`'s hook failures: a git hook's and an agent hook's last failure each
give when, which hook and what it said; none gives null."""

from __future__ import annotations

from memidx.index.failures import HookFailure
from memidx.memory.json_objects import status_data
from memidx.memory.status import Status


def test_each_hook_failure_says_when_which_hook_and_what() -> None:
    git = HookFailure("2026-12-05T06:00:00Z", "post-commit", "sync failed")
    agent = HookFailure("2026-12-05T06:01:00Z", "claude-code Stop", "no transcript")
    status = Status("git", None, 0, ".memidx/index.sqlite", 0)

    quiet = status_data(status)
    status.hook_failure, status.agent_failure = git, agent
    failed = status_data(status)

    assert (quiet["hook_failure"], quiet["agent_hook_failure"]) == (None, None)
    assert failed["hook_failure"] == {
        "when": "2026-12-05T06:00:00Z",
        "hook": "post-commit",
        "message": "sync failed",
    }
    assert failed["agent_hook_failure"] == {
        "when": "2026-12-05T06:01:00Z",
        "hook": "claude-code Stop",
        "message": "no transcript",
    }
