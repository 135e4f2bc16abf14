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
from memidx.agents.session import SessionState, Where, session_state, where_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

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
LAGGED = "codex-lagged"  # session state: the turns filed before the rollout held them whole


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
    actions.finish_archive(config, where)  # a PreCompact cut off: first (archive_left)
    from memidx.agents.codex_transcript import parse
    from memidx.agents.transcript import read_text

    path = str(payload.get("transcript_path") or "")
    text = read_text(Path(path)) if path else ""
    if event == "Stop":
        exchanges, lagged = _exchanges(call, where, text)
        if lagged is None:
            actions.capture(config, where, exchanges)
        else:  # once filed anew: a failed filing leaves it to the rollout's copy, and so does
            # one whose text an earlier turn of the session filed (the same words again)
            actions.capture(config, where, exchanges[:-1])
            if any(not f.duplicate for f in actions.capture(config, where, exchanges[-1:])):
                state = session_state(config, where)
                state.add(LAGGED, lagged)
                state.save()
    if event in ("Stop", "PostCompact"):
        for summary in parse(text).summaries:
            actions.summary(config, where, summary)
    elif event == "PreCompact":  # the archive first: filing may outlast the deadline or fail
        actions.archive_transcript(config, where, text)
        lagged = _lagged(session_state(config, where))
        written = [e for _, e in _unfiled(lagged, parse(text).exchanges) if e.answered]
        actions.capture(config, where, written)
    actions.finish_others(config, where, call.deadline)  # last, with the time left
    return ""


def _exchanges(call: HookCall, where: Where, text: str) -> tuple[list[Exchange], str | None]:
    """The exchanges to file at Stop, and the key of a turn filed ahead of the rollout. The
    rollout may lag the event: the turn's answer (the message Stop reports), its tool calls or
    even its prompt (the one the prompt hook kept) may be missing. The turn is then filed from
    what is there plus the answer, and remembered (its key, once it is filed), so the
    rollout's fuller copy of it is not filed again once it is written. The key holds the
    turn's place in the rollout: a later turn of the same words is another turn."""
    from memidx.agents.codex_transcript import parse
    from memidx.agents.exchange import Exchange

    last = str(call.payload.get("last_assistant_message") or "").strip()
    state = session_state(call.config, where)
    prompt = (state.text(PROMPT) or "").strip()
    written = parse(text).exchanges
    found = _unfiled(_lagged(state), written)
    exchanges = [e for _, e in found]
    tail = found[-1] if found else None
    if not last or (tail and any(a.strip() == last for a in tail[1].assistant)):
        return exchanges, None
    if tail and (not prompt or tail[1].user.strip() == prompt):  # its answer is not written
        place, turn = tail[0], Exchange(tail[1].user, (*tail[1].assistant, last), closed=True)
        exchanges[-1] = turn
    elif prompt:  # nor its prompt: the rollout's last turn is an earlier one
        place, turn = len(written), Exchange(prompt, (last,), closed=True)
        exchanges.append(turn)
    else:
        return exchanges, None
    return exchanges, _turn_key(place, turn.user, last)


def _lagged(state: SessionState) -> set[str]:
    """The keys of the turns filed before the rollout held them whole."""
    return set(state.keys(LAGGED))


def _unfiled(lagged: set[str], exchanges: Sequence[Exchange]) -> list[tuple[int, Exchange]]:
    """The exchanges, each with its place in the rollout, but those filed before the rollout
    held them whole (their keys in `lagged`)."""
    return [
        (place, e)
        for place, e in enumerate(exchanges)
        if _turn_key(place, e.user, _answer(e)) not in lagged
    ]


def _answer(exchange: Exchange) -> str:
    """The exchange's last message (not a tool note), as Stop reports it."""
    texts = [a.strip() for a in exchange.assistant if not a.startswith("[tool ")]
    return texts[-1] if texts else ""


def _turn_key(place: int, prompt: str, answer: str) -> str:
    """The key of the turn at `place` in the rollout (its prompt and answer too: a place the
    prompt's text does not match is never taken for it)."""
    import hashlib

    key = f"{place}\n\x00\n{prompt.strip()}\n\x00\n{answer}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(key).hexdigest()


ADAPTER = Adapter(NAME, {event: deadline for event, (_, deadline) in EVENTS.items()}, handle)
