"""Exchanges shaped like the ones agents' Stop hooks file, made from TIL notes (pure), for
`recall_agent_turns`.

A note made into an exchange: the person's request is the note's title in one of a few
chatty phrasings, the assistant's text opens with a line of chatter and a tool call that
looks around, then the note's prose (links as their text) with each code block one tool
note (`[tool Bash: <its first line>]`), and a closing line. One exchange in SHORT_EVERY is
short (its first tool note and its first sentences, at most SHORT_CHARS), as quick
exchanges are. Besides the answers, the memory holds exchanges that only mention a note's
topic while doing something else (MENTION_EVERY), never an answer, and one exchange of
chatter per session.
"""

from __future__ import annotations

import hashlib
import re

from memidx.frozen import Value

FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
SENTENCE_END = re.compile(r"(?<=[.!?:])\s")
SHORT_EVERY = 3
SHORT_CHARS = 240
MENTION_EVERY = 4

REQUESTS = (
    "{t}?",
    "quick one: {t}?",
    "ok next thing. {t} - how?",
    "can you look into this for me: {t}",
    "{t}? keep it short please",
)
OPENERS = (
    "Let me check.",
    "Sure, I'll look at the project first.",
    "Good question. Let me look at how this repo does it.",
    "On it.",
)
LOOKS = (
    "[tool Bash: git status]",
    "[tool Read: README.md]",
    "[tool Grep: TODO]",
    "[tool Bash: ls]",
)
CLOSERS = (
    "Want me to apply this to the rest of the repo?",
    "Done. Tell me if anything else breaks.",
    "That should do it.",
    "I haven't changed any files yet.",
)
MENTIONS = (
    (
        "we'll get to {t} later; first run the tests",
        "[tool Bash: make test]\nAll tests pass. {t} is still on the list for later.",
    ),
    (
        "add a TODO about {t} to the notes file and commit",
        "[tool Edit: NOTES.md]\n[tool Bash: git commit -am 'todo']\nAdded a TODO for {t}.",
    ),
    (
        "did the last deploy finish? I was reading about {t} meanwhile",
        "[tool Bash: gh run list --limit 1]\nThe last deploy finished 4 minutes ago.",
    ),
)
CHATTER = ("thanks, commit that", "[tool Bash: git commit -am 'wip']\nCommitted.")


class Made(Value):
    """One exchange: the person's text, the assistant's, and whether it answers its note."""

    user: str
    assistant: str
    answers: bool = True


def pick(key: str, choices: int, salt: str = "") -> int:
    """A stable choice among `choices`, by the hash of `key` (a note's path)."""
    return hashlib.sha256(f"{salt}{key}".encode()).digest()[0] % choices


def title_and_said(note: str) -> tuple[str, str]:
    """The note's title and its prose with each code block a tool note, blank lines left out."""
    lines = note.split("\n")
    titled = bool(lines) and lines[0].startswith("#")
    title = lines[0].lstrip("# ").strip() if titled else ""
    body = "\n".join(lines[1:]) if titled else note

    def tool(match: re.Match[str]) -> str:
        code = [c for c in match.group(1).splitlines() if c.strip()]
        return f"\n[tool Bash: {' '.join(code[0].split())[:159]}]\n" if code else "\n"

    said = LINK.sub(r"\1", FENCE.sub(tool, body))
    return title, "\n".join(line for line in said.splitlines() if line.strip())


def answer(key: str, note: str) -> Made:
    """The exchange that answers with `note` (short for one note in SHORT_EVERY)."""
    title, said = title_and_said(note)
    user = REQUESTS[pick(key, len(REQUESTS))].format(t=title)
    opener = f"{OPENERS[pick(key, len(OPENERS), 'o')]}\n{LOOKS[pick(key, len(LOOKS), 'l')]}"
    if pick(key, SHORT_EVERY, "s") == 0:
        return Made(user, f"{opener}\n{short(said)}")
    return Made(user, f"{opener}\n{said}\n{CLOSERS[pick(key, len(CLOSERS), 'c')]}")


def short(said: str) -> str:
    """The first tool note and the prose's first sentences, at most SHORT_CHARS."""
    lines = said.splitlines()
    tools = [line for line in lines if line.startswith("[tool ")][:1]
    prose = " ".join(line for line in lines if not line.startswith("[tool "))
    kept = ""
    for sentence in SENTENCE_END.split(prose):
        if kept and len(kept) + len(sentence) > SHORT_CHARS:
            break
        kept = f"{kept} {sentence}".strip()
    return "\n".join([*tools, kept[:SHORT_CHARS]])


def mention(key: str, note: str) -> Made | None:
    """An exchange that names the note's topic while doing something else (MENTION_EVERY)."""
    if pick(key, MENTION_EVERY, "m") != 0:
        return None
    title = title_and_said(note)[0].lower()
    user, said = MENTIONS[pick(key, len(MENTIONS), "k")]
    return Made(user.format(t=title), said.format(t=title), answers=False)


def chatter() -> Made:
    return Made(*CHATTER, answers=False)
