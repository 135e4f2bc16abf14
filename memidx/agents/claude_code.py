"""Claude Code's hooks: its events and their input and output shapes. Its transcript is read
by memidx/agents/claude_transcript.py; where its settings live, memidx/agents/claude_install.py."""

from __future__ import annotations

from pathlib import Path

from memidx.agents import actions
from memidx.agents.hook_output import additional_context
from memidx.agents.runner import Adapter, HookCall
from memidx.agents.session import where_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.agents.exchange import Exchange

NAME = "claude-code"
# event: (Claude Code's timeout for the hook in seconds, memidx's own deadline in seconds)
EVENTS: dict[str, tuple[int, float]] = {
    "SessionStart": (10, 1.5),
    "UserPromptSubmit": (10, 1.5),
    "Stop": (30, 10.0),
    "PreCompact": (60, 30.0),
    "PostCompact": (30, 10.0),
    "SessionEnd": (10, 1.4),  # Claude Code gives SessionEnd hooks about 1.5 s in all
}


def handle(call: HookCall) -> str:
    """One Claude Code hook event's work; what to print ("" for nothing)."""
    payload, config = call.payload, call.config
    where = where_of(NAME, payload)
    event = call.event
    if event == "SessionStart":
        return additional_context(event, actions.session_start(config, where))
    if event == "UserPromptSubmit":
        prompt = str(payload.get("prompt") or "")
        return additional_context(event, actions.recall_for(config, where, prompt, call.deadline))
    if event != "SessionEnd":  # a PreCompact cut off: first (archive_left), for the summary
        actions.finish_archive(config, where)
    from memidx.agents.claude_transcript import parse
    from memidx.agents.transcript import read_text

    text = read_text(Path(str(payload.get("transcript_path") or "")))
    if event == "PreCompact":  # first: filing the exchanges may outlast the deadline or fail
        actions.archive_transcript(config, where, text)
    transcript = parse(text)
    if event in ("Stop", "SessionEnd", "PreCompact"):
        last = str(payload.get("last_assistant_message") or "").strip()
        every = event == "SessionEnd"
        exchanges = [e for e in transcript.exchanges if e.closed or every or _done(e, last)]
        actions.capture(config, where, exchanges)
    if event == "SessionEnd":  # its 1.4 s, the session's last, go to the exchanges first
        actions.finish_archive(config, where)
    if event == "PostCompact":
        actions.summary(config, where, str(payload.get("compact_summary") or ""))
    if event in ("Stop", "SessionEnd"):  # versions without PostCompact: the summary record
        for summary in transcript.summaries:
            actions.summary(config, where, summary)
    actions.finish_others(config, where, call.deadline)  # last, with the time left
    return ""


def _done(exchange: Exchange, last: str) -> bool:
    """Whether the transcript holds the whole last exchange: its last text is the message the
    Stop event reports (without one, whatever answer is there)."""
    texts = [a for a in exchange.assistant if not a.startswith("[tool ")]
    if not last:
        return bool(texts)
    return bool(texts) and texts[-1].strip() == last


ADAPTER = Adapter(
    NAME,
    {event: deadline for event, (_, deadline) in EVENTS.items()},
    handle,
    kills={"SessionEnd": EVENTS["SessionEnd"][1]},  # its ~1.5 s: no grace for a late start
)
