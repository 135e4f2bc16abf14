"""Whether a prompt deserves recall, and whether a hit is relevant enough to inject (pure).

RRF scores only rank; they say nothing about whether the best hit answers anything. The gate
uses two absolute signals instead: the cosine of the hit's best chunk with the prompt, and the
share of the prompt's words the hit contains, with thresholds per kind of hit: a line of
conversation is short and chatty, so its cosine with a question it answers runs lower than a
note's; an exchange an agent filed (a request, the answer, tool notes) is gated as a note is.
Of the hits that pass, the most relevant by the search's calibrated `relevance` are injected
first, so a right hit ranked fourth by RRF still makes the k injected. The thresholds live
here, in one place, checked on labeled prompts (`make bench ONLY=recall`: a dev half, and a
test half never tuned on).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from memidx.frozen import Value
from memidx.notes.words import WORD


class Signal(Value):
    """What the gate knows about one hit."""

    cosine: float  # of the hit's best chunk with the prompt (0 when it has no vector)
    word_share: float  # share of the prompt's content words found in the hit (0..1)
    relevance: float | None = None  # the search's calibrated relevance, when it gives one
    kind: str = "note"  # the hit's kind: note, turn, fact
    known: float = 1.0  # share of the prompt's content words found anywhere in the memory
    exchange: bool = False  # a turn that holds a request and its answer (`exchange`)


class Thresholds(Value):
    """A hit is relevant when its cosine is at least `cosine`, or at least `cosine_with_words`
    with `word_share` of the prompt's words in it, or at least `cosine_with_every_word` with
    every one of them, and the memory knows at least `known` of the prompt's words (a prompt
    about names and things memory never saw is not about it)."""

    cosine: float
    cosine_with_words: float
    word_share: float
    known: float = 0.0
    cosine_with_every_word: float | None = None  # None: no such path


class Gate(Value):
    """Thresholds per kind of hit: lines of conversation have their own, exchanges an agent
    filed theirs, every other kind (notes, facts) the notes'."""

    note: Thresholds
    turn: Thresholds
    exchange: Thresholds | None = None  # None: exchanges are gated as other turns

    def of(self, kind: str, exchange: bool = False) -> Thresholds:
        if kind != "turn":
            return self.note
        return self.exchange if exchange and self.exchange is not None else self.turn


# For all-MiniLM-L6-v2-int8. Notes: chosen on the tuning side of `python -m
# tests.benchmark.recall_held` only (the TIL dev queries; 2026-12-01) as the fewest false
# injections that keep its right-note rate (0.802): the words path needs a fair cosine too (0.56,
# was 0.40), since a note on the prompt's topic shares its words without answering it (TIL
# queries no note answers got a note on 0.589 of them before, 0.321 after). A note with every
# word of the prompt passes at 0.50: a note's own title asked as a question (`make bench
# ONLY=recall`, dev half) often has a cosine of 0.50-0.55 with its best chunk (0.935 of those
# prompts injected without that path, 0.987 with it; the TIL dev queries' figures unchanged).
# Turns: chosen on the tuning side of `python -m tests.benchmark.recall_held` only
# (the TIL dev queries and LoCoMo conv-26, 30, 41, 42, 43; 2026-12-01), with the neighbouring
# turns that come with a recalled turn (recall.NEIGHBOURS): a lower cosine with words, and the
# `known` floor, which stops most questions about another conversation's people (injected on
# 0.068 of them before, 0.025 after) while right turns went from 0.592 to 0.696. The held-back
# side's figures: README, "Agents".
# Exchanges (turns as agents' Stop hooks and `file-turn` write them, `exchange`): the notes'
# thresholds, chosen on the dev split of `python -m tests.benchmark.recall_agent_turns` only
# (2026-12-02): gated as lines of conversation, something was injected for 0.786 of its TIL
# queries no exchange answers (right 0.871); over a grid of thresholds for exchanges, the most
# right ones with at most 0.20 of negatives injected is the notes' own cell (0.723 right; no-
# answer queries injected 0.223); at most 0.10 costs a fifth of them (0.72 / 0.60 / 0.6: 0.574
# right). A turn's length cannot tell exchanges from lines of conversation: short exchanges
# are as long as LoCoMo's turns, and any cut-off that keeps those let 0.57 of the no-answer
# queries through; thresholds of their own for short exchanges gained nothing on dev.
THRESHOLDS = Thresholds(
    cosine=0.62, cosine_with_words=0.56, word_share=0.60, cosine_with_every_word=0.50
)
TURN_THRESHOLDS = Thresholds(cosine=0.52, cosine_with_words=0.29, word_share=0.50, known=0.75)
GATE = Gate(note=THRESHOLDS, turn=TURN_THRESHOLDS, exchange=THRESHOLDS)


def relevant(signal: Signal, gate: Gate = GATE) -> bool:
    """The gate: the one function to change to gate on another signal (e.g. `relevance`)."""
    thresholds = gate.of(signal.kind, signal.exchange)
    if signal.known < thresholds.known:
        return False
    if signal.cosine >= thresholds.cosine:
        return True
    every = thresholds.cosine_with_every_word
    if every is not None and signal.word_share >= 1.0 and signal.cosine >= every:
        return True
    return signal.cosine >= thresholds.cosine_with_words and (
        signal.word_share >= thresholds.word_share
    )


def pick(signals: Sequence[Signal], k: int, gate: Gate = GATE) -> list[int]:
    """The indexes of up to `k` relevant hits, the most relevant first by the search's
    calibrated relevance (ties, and hits without one, keep the search's order)."""
    passing = [i for i, signal in enumerate(signals) if relevant(signal, gate)]
    passing.sort(key=lambda i: -(signals[i].relevance or 0.0))
    return passing[:k]


MIN_PROMPT_CHARS = 12
# A prompt is measured by its first MAX_PROMPT_CHARS: the search keeps its first 32 words and
# the model its first 256 tokens anyway, while reading a pasted log of megabytes whole cost
# seconds (1 MB: 1.8 s, 5 MB: 10.5 s, in process here), past every hook's deadline; the hook
# cuts it before it asks the server, whose request it must fit.
MAX_PROMPT_CHARS = 32_000
MIN_CONTENT_WORDS = 2
# Prompts that carry a turn of conversation, not a question: never worth a search.
_CHATTER_TEXT = """
a again ahead all alright and awesome but cheers cool continue correct do done exactly fine
for go good great it keep lgtm looks me nice no nope now ok okay on please proceed right
same so sounds sure thank thanks thx that the then this to try us yeah yep yes you
"""
CHATTER = frozenset(_CHATTER_TEXT.split())
# Words a prompt shares with almost any text: they say nothing about a hit's relevance.
_FUNCTION_TEXT = """
a an and are as at be been but by can could did do does for from had has have how i if in into
is it its me my no not of on or our so than that the their them then there these they this to
up us was we were what when where which who why will with would you your
"""
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())


def prompt_words(text: str) -> list[str]:
    """The distinct content words of a prompt, lower-cased, stopwords left out."""
    from memidx.search.query import STOPWORDS  # not on the prompt hook's lean path

    words = dict.fromkeys(w.lower() for w in WORD.findall(text))
    return [w for w in words if w not in STOPWORDS and w not in FUNCTION_WORDS]


# How `file-turn` and every agent's Stop hook write an exchange (haystack/turn_input.py):
# "User: <request>\n\nAssistant: <answer>", or the answer alone when the request is empty.
USER_HEAD, ASSISTANT_HEAD = "User: ", "Assistant: "


def exchange(text: str) -> bool:
    """Whether a turn's text is an exchange as agents file it (the person's request, the
    assistant's answer and tool notes), not one line of a conversation: a chat line whose
    speaker is called "User" holds no answer (agents file only answered exchanges)."""
    body = text.lstrip()
    if body.startswith(ASSISTANT_HEAD):
        return True
    return body.startswith(USER_HEAD) and f"\n\n{ASSISTANT_HEAD}" in body


def trivial(prompt: str) -> bool:
    """A prompt with nothing to recall for: a slash command, a dozen characters, chatter."""
    text = prompt.strip()
    if len(text) < MIN_PROMPT_CHARS or text.startswith(("/", "!", "#")):
        return True
    words = {w.lower() for w in WORD.findall(text)}
    content = words - CHATTER - FUNCTION_WORDS
    return len(content) < MIN_CONTENT_WORDS


def without_words(text: str, words: Collection[str]) -> str:
    """`text` without the given lower-cased words (whole words, any case), spaces collapsed."""
    if not words:
        return text
    kept = WORD.sub(lambda m: "" if m.group(0).lower() in words else m.group(0), text)
    return " ".join(kept.split())


def word_share(words: list[str], text: str) -> float:
    """The share of `words` that occur in `text` (whole words, case-insensitive; a word also
    counts when the text has it with a plural or verb ending)."""
    if not words:
        return 0.0
    stems = {_stem(w.lower()) for w in WORD.findall(text)}
    hits = sum(1 for w in words if _stem(w) in stems)
    return hits / len(words)


def _stem(word: str) -> str:
    for end in ("ing", "ed", "es", "s"):
        if len(word) > len(end) + 3 and word.endswith(end):
            return word[: -len(end)]
    return word
