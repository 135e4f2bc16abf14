"""Codex CLI's hooks (hooks.json, Claude Code's shape): SessionStart and UserPromptSubmit inject
context as `hookSpecificOutput.additionalContext`; Stop files the turn from the rollout
(memidx/agents/codex_transcript.py), or, when Codex gives no rollout path, from the prompt the
prompt hook kept and the `last_assistant_message`; PreCompact archives the rollout; PostCompact
(and Stop, for a compaction whose PostCompact did not run) files the summary of the rollout's
`compacted` record. Codex 0.171.0 sends neither hook a summary: only `trigger` (manual | auto).
Where its configuration lives: memidx/agents/codex_install.py."""

from __future__ import annotations

from pathlib import Path

from memidx.agents import actions
from memidx.agents.hook_output import additional_context
from memidx.agents.runner import Adapter, HookCall
from memidx.agents.session import Where, session_state, where_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.agents.exchange import Exchange

NAME = "codex"
# event: (Codex's timeout for the hook in seconds, memidx's own deadline in seconds)
EVENTS: dict[str, tuple[int, float]] = {
    "SessionStart": (10, 1.5),
    "UserPromptSubmit": (10, 1.5),
    "Stop": (30, 10.0),
    "PreCompact": (60, 30.0),
    "PostCompact": (30, 10.0),
}
PROMPT = "codex-prompt"  # session state: the last prompt, for a Stop without a rollout


def handle(call: HookCall) -> str:
    """One Codex hook event's work; what to print ("" for nothing)."""
    payload, config, event = call.payload, call.config, call.event
    where = where_of(NAME, payload)
    if event == "SessionStart":
        return additional_context(event, actions.session_start(config, where))
    if event == "UserPromptSubmit":
        prompt = str(payload.get("prompt") or "")
        state = session_state(config, where)
        state.set_text(PROMPT, prompt)
        state.save()
        return additional_context(event, actions.recall_for(config, where, prompt, call.deadline))
    from memidx.agents.codex_transcript import parse
    from memidx.agents.transcript import read_text

    path = str(payload.get("transcript_path") or "")
    text = read_text(Path(path)) if path else ""
    if event == "Stop":
        actions.capture(config, where, _exchanges(call, where, text))
    if event in ("Stop", "PostCompact"):
        for summary in parse(text).summaries:
            actions.summary(config, where, summary)
    elif event == "PreCompact":
        actions.capture(config, where, [e for e in parse(text).exchanges if e.answered])
        actions.archive_transcript(config, where, text)
    return ""


def _exchanges(call: HookCall, where: Where, text: str) -> list[Exchange]:
    from memidx.agents.codex_transcript import parse
    from memidx.agents.exchange import Exchange

    last = str(call.payload.get("last_assistant_message") or "").strip()
    found = list(parse(text).exchanges)
    if found:  # the last turn: its answer is the message Stop reports, the rollout may lag
        *done, current = found
        if last and not any(a.strip() == last for a in current.assistant):
            current = Exchange(current.user, (*current.assistant, last), closed=True)
        return [*done, current]
    prompt = session_state(call.config, where).text(PROMPT) or ""
    return [Exchange(prompt, (last,), closed=True)] if prompt and last else []


ADAPTER = Adapter(NAME, {event: deadline for event, (_, deadline) in EVENTS.items()}, handle)
