"""Cursor's hooks (hooks.json, version 1). Its prompt hook cannot inject context, so recall in
Cursor is the session-start digest (`additional_context`) plus a rule file that tells the model
to call memidx's search tool first (memidx/agents/cursor_install.py). beforeSubmitPrompt keeps
the prompt (and lets it through); afterAgentResponse files it with the reply's `text`;
preCompact archives the transcript verbatim. The session is Cursor's `conversation_id`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

from memidx.agents import actions
from memidx.agents.runner import Adapter, HookCall
from memidx.agents.session import Where, session_state

NAME = "cursor"
# event: (Cursor's timeout for the hook in seconds, memidx's own deadline in seconds)
EVENTS: dict[str, tuple[int, float]] = {
    "sessionStart": (10, 1.5),
    "beforeSubmitPrompt": (10, 1.0),
    "afterAgentResponse": (30, 10.0),
    "preCompact": (60, 30.0),
}
PROMPT = "cursor-prompt"  # session state: the prompt the reply answers
LET_THROUGH = json.dumps({"continue": True})  # beforeSubmitPrompt's answer, even on a failure


def handle(call: HookCall) -> str:
    """One Cursor hook event's work; what to print ("" for nothing)."""
    payload, config, event = call.payload, call.config, call.event
    session = str(payload.get("conversation_id") or payload.get("session_id") or "unknown")
    where = Where(NAME, session, _cwd(payload))
    if event == "sessionStart":
        digest = actions.session_start(config, where)
        return json.dumps({"additional_context": digest}, ensure_ascii=False) if digest else ""
    state = session_state(config, where)
    if event == "beforeSubmitPrompt":
        state.set_text(PROMPT, str(payload.get("prompt") or ""))
        state.save()
        return LET_THROUGH
    if event == "afterAgentResponse":
        from memidx.agents.exchange import Exchange

        prompt, answer = state.text(PROMPT) or "", str(payload.get("text") or "").strip()
        if prompt.strip() and answer:
            actions.capture(config, where, [Exchange(prompt, (answer,), closed=True)])
    # a preCompact cut off (archive_left), after the exchange: only this payload holds its
    # answer, and the parts left may outlast the deadline; preCompact finishes it first
    actions.finish_archive(config, where)
    if event == "preCompact":
        from memidx.agents.transcript import read_text

        path = str(payload.get("transcript_path") or "")
        if path:
            actions.archive_transcript(config, where, read_text(Path(path)))
    actions.finish_others(config, where, call.deadline)  # last, with the time left
    return ""


def _cwd(payload: dict[str, object]) -> str:
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots:
        return str(cast(list[object], roots)[0])
    return str(payload.get("cwd") or Path.cwd())


ADAPTER = Adapter(
    NAME,
    {event: deadline for event, (_, deadline) in EVENTS.items()},
    handle,
    lambda event: LET_THROUGH if event == "beforeSubmitPrompt" else "",
)
