"""Gemini CLI's hooks (settings.json `hooks`; stdout must be JSON only): SessionStart injects
the digest and BeforeAgent the recall block as `hookSpecificOutput.additionalContext`;
AfterAgent files the turn from its `prompt` and `prompt_response`; PreCompress archives the
session file verbatim when Gemini is about to compress it (it fires PreCompress before every
request to the model: memidx/agents/gemini_session.py). Gemini CLI 0.61.0 shows no hook the
summary of a compression, nor writes it to the session file, so none is filed. Where its
configuration lives: memidx/agents/gemini_install.py."""

from __future__ import annotations

from pathlib import Path

from memidx.agents import actions
from memidx.agents.block import strip_injected
from memidx.agents.hook_output import additional_context, cwd_of
from memidx.agents.runner import Adapter, HookCall
from memidx.agents.session import where_of

NAME = "gemini"
# event: (Gemini CLI's timeout for the hook in milliseconds, memidx's own deadline in seconds)
EVENTS: dict[str, tuple[int, float]] = {
    "SessionStart": (10_000, 1.5),
    "BeforeAgent": (10_000, 1.5),
    "AfterAgent": (30_000, 10.0),
    "PreCompress": (60_000, 30.0),
}
NOTHING = "{}"  # Gemini CLI parses every hook's stdout as JSON
# No digest for a resumed chat: its history holds the one given at its start, and headless
# (`gemini -r latest -p ...`) Gemini CLI 0.61.0 puts SessionStart context before the prompt,
# as `<hook_context>...</hook_context>`, so a `/compress` there would be no command.
RESUME = "resume"


def handle(call: HookCall) -> str:
    """One Gemini CLI hook event's work; what to print ("" for nothing)."""
    payload, config, event = call.payload, call.config, call.event
    where = where_of(NAME, payload)
    if event == "SessionStart":
        if payload.get("source") == RESUME:
            return NOTHING
        return additional_context(event, actions.session_start(config, where), NOTHING)
    if event == "BeforeAgent":
        prompt = strip_injected(str(payload.get("prompt") or ""))
        return additional_context(
            event, actions.recall_for(config, where, prompt, call.deadline), NOTHING
        )
    if event == "AfterAgent":
        from memidx.agents.exchange import Exchange

        prompt = str(payload.get("prompt") or "").strip()
        answer = str(payload.get("prompt_response") or "").strip()
        if prompt and answer:
            actions.capture(config, where, [Exchange(prompt, (answer,), closed=True)])
    # a PreCompress cut off (archive_left), after the exchange: only this payload holds it, and
    # the parts left may outlast the deadline; PreCompress finishes it first (archive_transcript)
    actions.finish_archive(config, where)
    if event == "PreCompress":
        from memidx.agents.gemini_session import compresses
        from memidx.agents.transcript import read_text

        path = str(payload.get("transcript_path") or "")
        text = read_text(Path(path)) if path else ""
        if text and (payload.get("trigger") == "manual" or compresses(text, cwd_of(payload))):
            actions.archive_transcript(config, where, text)
    actions.finish_others(config, where, call.deadline)  # last, with the time left
    return NOTHING


ADAPTER = Adapter(
    NAME,
    {event: deadline for event, (_, deadline) in EVENTS.items()},
    handle,
    lambda _event: NOTHING,
)
