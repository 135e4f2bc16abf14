"""One exchange of a session as memidx files it (pure): the person's text, the assistant's
text, a compact note of each tool call; never the context memidx or the agent injected."""

from __future__ import annotations

from typing import cast

from memidx.agents.block import strip_injected
from memidx.frozen import Value

TOOL_NOTE_CHARS = 160


class Exchange(Value):
    """A prompt and everything the assistant said and did until the next prompt."""

    user: str
    assistant: tuple[str, ...] = ()  # texts and tool notes, in order
    closed: bool = False  # a later prompt follows, so nothing more will be added

    def texts(self) -> tuple[str, str]:
        """(user, assistant) as filed, injected spans removed."""
        assistant = "\n".join(t for t in (strip_injected(a) for a in self.assistant) if t)
        return strip_injected(self.user), assistant

    @property
    def answered(self) -> bool:
        return bool(self.texts()[1])


class Exchanges:
    """A session's exchanges, put together as a reader meets its prompts and the assistant's
    texts and tool notes, in order (the transcript readers and Hermes's message lists)."""

    def __init__(self) -> None:
        self._found: list[Exchange] = []
        self._user: str | None = None
        self._said: list[str] = []

    def prompt(self, text: str) -> None:
        """A new prompt: the exchange before it is complete."""
        if self._user is not None:
            self._found.append(Exchange(self._user, tuple(self._said), closed=True))
        self._user, self._said = text, []

    def said(self, *parts: str) -> None:
        """What the assistant said or did for the current prompt (nothing before the first)."""
        if self._user is not None:
            self._said.extend(p for p in parts if p.strip())

    def done(self, *, last_closed: bool = False) -> tuple[Exchange, ...]:
        """Every exchange; the last one is closed only when the reader knows it is complete."""
        if self._user is None:
            return tuple(self._found)
        return (*self._found, Exchange(self._user, tuple(self._said), closed=last_closed))


def tool_note(name: str, arguments: object) -> str:
    """`[tool Bash: ls -la]`: the tool's name and its main argument, shortened."""
    shown = ""
    if isinstance(arguments, dict):
        table = cast(dict[str, object], arguments)
        for key in ("command", "file_path", "path", "pattern", "query", "url", "description"):
            value = table.get(key)
            if isinstance(value, str) and value:
                shown = value
                break
    shown = " ".join(shown.split())
    if len(shown) > TOOL_NOTE_CHARS:
        shown = shown[: TOOL_NOTE_CHARS - 1] + "…"
    return f"[tool {name}{': ' + shown if shown else ''}]"
