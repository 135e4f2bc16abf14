"""The recall gate's thresholds per kind of hit, and the order in which passing hits are
injected (memidx/agents/gate.py, pure)."""

from __future__ import annotations

import pytest

from memidx.agents.gate import GATE, Gate, Signal, Thresholds, pick, relevant
from memidx.frozen import replace


@pytest.mark.parametrize(
    ("signal", "expected"),
    [
        (Signal(0.55, 0.0, kind="turn"), True),  # a turn's cosine runs lower than a note's
        (Signal(0.55, 0.0), False),
        (Signal(0.55, 0.0, kind="fact"), False),  # every other kind has the notes' thresholds
        (Signal(0.40, 0.5, kind="turn"), True),  # a fair cosine with half the words
        (Signal(0.40, 0.5), False),
        (Signal(0.25, 1.0, kind="turn"), False),  # the words alone never pass
        (Signal(0.45, 0.3, kind="turn"), False),
        (Signal(0.65, 0.0), True),
    ],
)
def test_a_turn_passes_on_a_lower_cosine_than_a_note(signal: Signal, expected: bool) -> None:
    assert relevant(signal) is expected


def test_the_kinds_thresholds_come_from_the_gate_given() -> None:
    strict = Thresholds(0.9, 0.9, 1.0)
    loose = Thresholds(0.1, 0.1, 0.0)
    gate = Gate(note=strict, turn=loose)

    assert relevant(Signal(0.2, 0.0, kind="turn"), gate)
    assert not relevant(Signal(0.8, 1.0), gate)
    assert GATE.of("turn") != GATE.of("note")


def test_the_most_relevant_passing_hits_are_injected_first() -> None:
    signals = [
        Signal(0.10, 0.0, 0.99),  # fails the gate, whatever its relevance
        Signal(0.70, 0.0, 0.20),
        Signal(0.70, 0.0, 0.90),
        Signal(0.70, 0.0, None),
        Signal(0.70, 0.0, 0.50),
    ]

    assert pick(signals, 2) == [2, 4]
    assert pick(signals, 3) == [2, 4, 1]


def test_hits_without_relevance_keep_the_search_order_and_k_is_a_cap() -> None:
    signals = [Signal(0.7, 0.0), Signal(0.1, 0.0), Signal(0.7, 0.0), Signal(0.7, 0.0)]

    assert pick(signals, 2) == [0, 2]
    assert pick(signals, 0) == []
    assert pick([Signal(0.1, 0.0)], 3) == []


def test_a_prompt_whose_words_memory_does_not_know_injects_no_turn() -> None:
    """Another conversation's question names people this memory never heard of: however close
    its best turn, it is not about this memory (TURN_THRESHOLDS.known)."""
    strange = Signal(0.9, 1.0, kind="turn", known=GATE.turn.known - 0.01)

    assert GATE.turn.known > 0
    assert not relevant(strange)
    assert relevant(replace(strange, known=1.0))
    assert relevant(Signal(0.9, 1.0, known=0.0))  # notes have no floor: paraphrases use new words


def test_a_note_needs_a_fair_cosine_even_with_the_prompts_words() -> None:
    """A note on the prompt's topic shares most of its words without answering it (a TIL query
    no note answers, "git blame ignore whitespace changes", against a note on whitespace in
    diffs): the words lower a note's cosine threshold only so far (GATE.note)."""
    on_topic = Signal(0.45, 0.8)

    assert not relevant(on_topic)
    assert relevant(replace(on_topic, cosine=GATE.note.cosine_with_words))
    assert not relevant(replace(on_topic, cosine=0.58, word_share=GATE.note.word_share - 0.01))
    assert relevant(Signal(GATE.note.cosine, 0.0))


def test_a_note_with_every_word_of_the_prompt_passes_on_a_lower_cosine() -> None:
    """A note's own title asked as a question often meets its best chunk at a cosine of only
    0.50-0.55; every word of the prompt in it says it is that note (GATE.note)."""
    every = GATE.note.cosine_with_every_word

    assert every is not None and every < GATE.note.cosine_with_words
    assert relevant(Signal(every, 1.0))
    assert not relevant(Signal(every, 0.9))
    assert not relevant(Signal(every - 0.01, 1.0))
    assert GATE.turn.cosine_with_every_word is None  # turns keep their own two paths
