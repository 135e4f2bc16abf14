"""What the agents that take Claude Code's hook shape share: the directory a hook call is about,
and the JSON that adds context to the agent's turn."""

from __future__ import annotations

import json
from pathlib import Path


def cwd_of(payload: dict[str, object]) -> str:
    """The agent's working directory, or this process's when the payload names none."""
    return str(payload.get("cwd") or Path.cwd())


def additional_context(event: str, text: str, empty: str = "") -> str:
    """`hookSpecificOutput.additionalContext` for `event`; `empty` when there is no text."""
    if not text:
        return empty
    output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(output, ensure_ascii=False)
