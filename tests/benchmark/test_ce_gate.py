"""The cross-encoder gate's choices: by logit alone, and the committed gate with a logit floor."""

from __future__ import annotations

from memidx.agents.block import Recalled
from memidx.agents.gate import Signal
from memidx.agents.recall import Candidate
from tests.benchmark.ce_gate import by_logit, committed, rates, shown
from tests.benchmark.recall_held import Labeled

PASSES, FAILS = Signal(0.95, 1.0, 0.9), Signal(0.05, 0.0, 0.1)  # the committed gate's verdicts


def _hit(ref: str, signal: Signal) -> Candidate:
    return Candidate(f"note:{ref}", Recalled(ref.title(), ref, 1, f"about {ref}"), signal)


HITS = [_hit("a", PASSES), _hit("b", FAILS), _hit("c", PASSES), _hit("d", PASSES)]
LOGITS = [-2.0, 8.0, 5.0, 1.0]
ASKED = Labeled("til", "what about c", "til+", frozenset({"note:c"}))
NOTHING = Labeled("til", "off topic", "off-topic-", frozenset())


def test_the_logit_alone_injects_the_best_three_at_the_threshold() -> None:
    [outcome] = by_logit([(ASKED, HITS, LOGITS)], 0.0)
    assert outcome.injected == ("note:b", "note:c", "note:d")
    [outcome] = by_logit([(ASKED, HITS, LOGITS)], 6.0)
    assert outcome.injected == ("note:b",)


def test_the_floor_keeps_only_what_passes_both() -> None:
    [outcome] = committed([(ASKED, HITS, LOGITS)])
    assert set(outcome.injected) == {"note:a", "note:c", "note:d"}
    [outcome] = committed([(ASKED, HITS, LOGITS)], 2.0)
    assert outcome.injected == ("note:c",)


def test_rates_count_right_positives_and_injected_negatives() -> None:
    scored = [(ASKED, HITS, LOGITS), (NOTHING, HITS, LOGITS)]
    assert rates(by_logit(scored, 6.0)) == (0.0, 1.0)
    assert rates(committed(scored, 2.0)) == (1.0, 1.0)
    assert rates(by_logit(scored, 9.0)) == (0.0, 0.0)


def test_the_cross_encoder_reads_what_the_hook_would_show() -> None:
    assert shown(HITS[:1]) == ["A\nabout a"]
