"""When an agent hook's work must answer (memidx.agents.hook_clock.work_ends): its deadline on
its process's clock, a short grace for a late start, never past the agent's own end."""

from __future__ import annotations

from memidx.agents import claude_code, codex
from memidx.agents.hook_clock import GRACE, work_ends


def test_a_hook_on_time_has_its_deadline_after_its_start() -> None:
    assert work_ends(100.0, 100.2, 1.5) == 101.5


def test_a_hook_late_to_start_gets_the_grace_after_now() -> None:
    assert work_ends(100.0, 103.0, 1.5) == 103.0 + GRACE
    assert work_ends(100.0, 103.0, 0.0) == 103.0  # a deadline of 0 (tests): none


def test_claude_code_s_session_end_gets_no_grace_past_its_end() -> None:
    """Claude Code kills a SessionEnd hook ~1.5 s after its start: a grace past it was killed
    before its gave-up line; the prompt's hook (10 s to Claude Code) keeps its grace."""
    kills = claude_code.ADAPTER.kills or {}
    limit = claude_code.ADAPTER.deadlines["SessionEnd"]
    assert work_ends(100.0, 101.2, limit, kills.get("SessionEnd")) <= 101.4
    assert work_ends(100.0, 101.2, limit, kills.get("SessionEnd")) == 100.0 + limit
    prompt = claude_code.ADAPTER.deadlines["UserPromptSubmit"]
    assert work_ends(100.0, 103.0, prompt, kills.get("UserPromptSubmit")) == 103.0 + GRACE
    assert not codex.ADAPTER.kills  # its hooks' timeouts (10 s and more) leave room for it
