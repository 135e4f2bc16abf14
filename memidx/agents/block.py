"""The text memidx injects into an agent's context, and the removal of injected text from what
is filed back (pure). Blocks are tagged, phrased as facts and bounded in size: Claude Code
replaces context over 10,000 characters with a file and a preview."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memidx.frozen import Value

RECALL_TAG = "memidx-recall"
DIGEST_TAG = "memidx-digest"
MAX_HITS = 3
BUDGET = 4_000  # characters of one recall block
HARD_CAP = 9_500  # never more, whatever the settings: under Claude Code's 10,000
SNIPPET_CHARS = 600
AROUND_CHARS = 300  # each neighbouring turn shown with a recalled turn
DIGEST_CHARS = 160  # a digest item's title, and its excerpt
MIN_SNIPPET = 80
DIGEST_BUDGET = 1_500


class Recalled(Value):
    """One hit as injected: what it is, where it is, a short excerpt."""

    title: str
    ref: str
    line: int
    snippet: str
    kind: str = "note"
    when: str = ""  # for records: when they were filed
    around: tuple[str, ...] = ()  # for turns: the session's turns just before and after it


def recall_block(hits: Sequence[Recalled], budget: int = BUDGET, k: int = MAX_HITS) -> str:
    """The recall block for up to `k` hits within `budget` characters; "" for no hits."""
    budget = min(budget, HARD_CAP)
    head = (
        f"<{RECALL_TAG}>\nmemidx memory holds these earlier notes and records that match the "
        "prompt (title, ref:line, excerpt):"
    )
    tail = f"\n</{RECALL_TAG}>"
    lines: list[str] = []
    used = len(head) + len(tail)
    for hit in hits[:k]:
        line = _hit_line(hit, SNIPPET_CHARS) + _around_lines(hit)
        if used + len(line) > budget:  # without its neighbours, then with a shorter excerpt
            line = _hit_line(hit, SNIPPET_CHARS)
        if used + len(line) > budget:
            frame = len(_hit_line(hit, 0))
            room = budget - used - frame
            if room < MIN_SNIPPET:
                break
            line = _hit_line(hit, room)
        lines.append(line)
        used += len(line)
    return head + "".join(lines) + tail if lines else ""


def _hit_line(hit: Recalled, snippet_chars: int) -> str:
    where = f"{hit.ref}:{hit.line}" if hit.line > 0 else hit.ref
    kind = "" if hit.kind == "note" else f"{hit.kind}{f' of {hit.when}' if hit.when else ''}, "
    return (
        f"\n- {_flat(hit.title, DIGEST_CHARS)} ({kind}{where}): {_flat(hit.snippet, snippet_chars)}"
    )


def _around_lines(hit: Recalled) -> str:
    return "".join(f"\n  - same session: {_flat(text, AROUND_CHARS)}" for text in hit.around)


def shown_around(block: str, hit: Recalled) -> bool:
    """Whether `block` shows `hit`'s neighbouring turns (the budget may have left them out)."""
    return bool(hit.around) and _around_lines(hit) in block


def digest_block(project: str, items: Sequence[Recalled], budget: int = DIGEST_BUDGET) -> str:
    """The session-start digest: recent notes and records about `project`; "" for none."""
    head = f"<{DIGEST_TAG}>\nRecent memidx notes and records about {_flat(project, 80)}:"
    tail = f"\n</{DIGEST_TAG}>"
    lines: list[str] = []
    used = len(head) + len(tail)
    for item in items:
        line = _hit_line(item, DIGEST_CHARS)
        if used + len(line) > budget:
            break
        lines.append(line)
        used += len(line)
    return head + "".join(lines) + tail if lines else ""


def _flat(text: str, limit: int) -> str:
    text = " ".join(strip_injected(text).replace("\x1b", " ").split())
    text = text.replace(f"</{RECALL_TAG}>", "").replace(f"</{DIGEST_TAG}>", "")
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 1)]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


# hook_context: Gemini CLI 0.61.0 headless puts a SessionStart hook's context (memidx's digest,
# its `<` escaped as `&lt;`) before the person's prompt in such a span
_INJECTED = f"{RECALL_TAG}|{DIGEST_TAG}|system-reminder|hook_context"
_TAG = re.compile(rf"<(/?)({_INJECTED})>", re.IGNORECASE)


def strip_injected(text: str) -> str:
    """`text` without memidx's own blocks, `<system-reminder>` spans and the agents' wrappers of
    hook context, so injected context is never filed back into memory. Spans nest (the first
    close of a span inside another of its tag ends the inner one only). Only closed spans are
    removed: the agents' always close, so an opening tag never closed is the person's text (a
    prompt that quotes one), as is a close with no span of its tag open. One pass, however
    deep."""
    if "<" not in text:
        return text
    open_tags: list[tuple[str, int]] = []  # each open span's tag and where it starts
    opened: dict[str, int] = {}  # how many spans of each tag are open
    cuts: list[tuple[int, int]] = []  # the closed spans, in order, none inside another
    for tag in _TAG.finditer(text):
        name = tag.group(2).lower()
        if not tag.group(1):
            open_tags.append((name, tag.start()))
            opened[name] = opened.get(name, 0) + 1
        elif opened.get(name):  # closes the innermost open span of its tag, and all inside it
            while (inner := open_tags.pop())[0] != name:
                opened[inner[0]] -= 1
            opened[name] -= 1
            while cuts and cuts[-1][0] >= inner[1]:  # spans inside this one go with it
                cuts.pop()
            cuts.append((inner[1], tag.end()))
    kept: list[str] = []
    start = 0
    for begin, end in cuts:
        kept.append(text[start:begin])
        start = end
    kept.append(text[start:])
    return "".join(kept).strip()
