"""Hermes Agent's memory-provider calls, as memidx's plugin in Hermes forwards them
(memidx/agents/hermes_install.py writes the plugin): `prefetch` returns the recall block for
the query as plain text; `sync_turn` files the turn; `pre_compress` archives the messages about
to be compressed as a transcript; `session_end` files every exchange of the session, and
prunes the states of Hermes's sessions gone KEEP_DAYS (memidx.agents.session.prune_sessions)."""

from __future__ import annotations

import json
import time
from typing import cast

from memidx.agents import actions
from memidx.agents.runner import Adapter, HookCall
from memidx.agents.session import prune_sessions, where_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.agents.exchange import Exchange

NAME = "hermes"
# event: memidx's deadline in seconds (the plugin waits a little longer, then gives up)
EVENTS: dict[str, float] = {
    "prefetch": 1.5,
    "sync_turn": 10.0,
    "pre_compress": 30.0,
    "session_end": 10.0,
}
# The plugin hands the write events the conversation itself, on stdin: read far past the 8 MiB
# of any other agent's input (a 9 MB compaction was cut there, and never archived). As much as
# Claude Code's transcript file is read of (64 MiB), as JSON whose escapes make text up to 3
# times as long (`\uXXXX` for each character of 2 UTF-8 bytes), with room to spare.
MAX_MESSAGES = 256 * 1024 * 1024


def handle(call: HookCall) -> str:
    """One Hermes hook event's work; what to print ("" for nothing)."""
    payload, config, event = call.payload, call.config, call.event
    where = where_of(NAME, payload)
    if event == "prefetch":
        query = str(payload.get("query") or "")
        return actions.recall_for(config, where, query, call.deadline)
    from memidx.agents.exchange import Exchange

    if event == "sync_turn":
        user = str(payload.get("user") or "").strip()
        assistant = str(payload.get("assistant") or "").strip()
        if user and assistant:
            actions.capture(config, where, [Exchange(user, (assistant,), closed=True)])
    messages = _messages(payload.get("messages"))
    if event == "session_end":
        actions.capture(config, where, exchanges(messages))
    # a pre_compress cut off (archive_left), after the exchanges: only this payload holds them,
    # and the parts left may outlast the deadline; pre_compress finishes it first
    actions.finish_archive(config, where)
    if event == "pre_compress" and messages:
        text = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
        actions.archive_transcript(config, where, text)
    if event == "session_end":
        # Hermes has no session start (the others' prune there): the states of sessions gone
        # 30 days go, and what an older memidx wrote 0644 is made the user's alone, at its end
        prune_sessions(config, NAME, time.time())
    actions.finish_others(config, where, call.deadline)  # last, with the time left
    return ""


def exchanges(messages: list[dict[str, object]]) -> list[Exchange]:
    """The exchanges of an OpenAI-style message list: each user message with the assistant's
    texts and tool calls until the next one."""
    from memidx.agents.exchange import Exchanges, tool_note

    found = Exchanges()
    for message in messages:
        role, content = message.get("role"), _text(message.get("content"))
        if role == "user" and content:
            found.prompt(content)
        elif role == "assistant":
            found.said(content)
            for call in cast(list[object], message.get("tool_calls") or []):
                function = (
                    cast(dict[str, object], call).get("function")
                    if isinstance(call, dict)
                    else None
                )
                if isinstance(function, dict):
                    table = cast(dict[str, object], function)
                    found.said(tool_note(str(table.get("name") or "tool"), _arguments(table)))
    return list(found.done(last_closed=True))


def _messages(value: object) -> list[dict[str, object]]:
    items = cast(list[object], value) if isinstance(value, list) else []
    return [cast(dict[str, object], m) for m in items if isinstance(m, dict)]


def _text(content: object) -> str:
    if isinstance(content, str):
        return content.strip()
    parts = cast(list[object], content) if isinstance(content, list) else []
    texts = [
        str(cast(dict[str, object], p).get("text") or "") for p in parts if isinstance(p, dict)
    ]
    return "\n".join(t for t in texts if t).strip()


def _arguments(function: dict[str, object]) -> object:
    raw = function.get("arguments")
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return {"command": raw}
    return raw


ADAPTER = Adapter(
    NAME,
    EVENTS,
    handle,
    inputs=dict.fromkeys(("sync_turn", "pre_compress", "session_end"), MAX_MESSAGES),
)
