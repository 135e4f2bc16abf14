"""A candidate embedding model is measured with memidx's models refitted on its features:
inside `refitted` the re-ranker, the turn-context and relevance models take the refit's
weights, whoever calls them, and memidx's own come back after, even on an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents.block import Recalled
from memidx.agents.gate import GATE, Signal
from memidx.agents.recall import Candidate, Recaller
from memidx.config import Config
from memidx.index.store import Store
from memidx.search import context, relevance, reranker
from memidx.search.context import TurnEvidence, turn_relevance
from memidx.search.relevance import Evidence
from memidx.search.reranker import Learned
from memidx.search.searcher import Searcher
from tests.benchmark.gate_fit import Prompted, fit_gate, prompted, rates
from tests.benchmark.recall_held import HELD, TUNE, Labeled, conversations, fits_gate
from tests.benchmark.refits import Refit, refitted

REFIT = Refit(
    reranker=(0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    turns=(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    relevance=(0.0, 1.0, 0.0, 0.0, 0.0),
)
TURN = TurnEvidence(0.5, 1.0, 2.0, 0.5, 0.4, 1.0, 0.5, True)
HIT = Evidence(0.5, 1.0, 2.0, 0.5)


def _config(tmp_path: Path) -> Config:
    return Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model="test/fake")


def test_inside_refitted_every_model_takes_the_refit_weights(store: Store, tmp_path: Path) -> None:
    with refitted(REFIT):
        searcher = Searcher(store, _config(tmp_path))
        learned = searcher.reranker

        assert isinstance(learned, Learned) and learned.weights == REFIT.reranker
        assert turn_relevance(TURN) == pytest.approx(relevance.logistic(0.5))
        assert relevance.relevance(HIT) == pytest.approx(relevance.logistic(0.5))


def test_memidx_weights_come_back_after_refitted_even_on_an_error() -> None:
    before = (turn_relevance(TURN), relevance.relevance(HIT))

    with pytest.raises(RuntimeError), refitted(REFIT):
        raise RuntimeError("a failed bench run")

    assert Learned().weights == reranker.WEIGHTS
    assert (turn_relevance(TURN), relevance.relevance(HIT)) == before
    assert context.turn_relevance.__defaults__ == (context.WEIGHTS,)


def _note(key: str, cosine: float) -> Candidate:
    recalled = Recalled(f"note {key}", key, 1, "what the note says", "note")
    return Candidate(f"note:{key}", recalled, Signal(cosine, 0.0, None, "note"))


def _measured(right: float, wrong: float) -> list[tuple[Labeled, list[Candidate]]]:
    asks = Labeled("til", "how do I squash commits", "til+", frozenset({"note:a"}))
    none = Labeled("til", "what is a rebase conflict", "til-", frozenset())
    return [(asks, [_note("a", right)]), (none, [_note("b", wrong)])]


def _prompted(right: float, wrong: float) -> list[Prompted]:
    recaller = Recaller(_config(Path("/nonexistent")))  # notes have no neighbours to look up
    return prompted(_measured(right, wrong), {"til": recaller})


def test_the_fitted_gate_keeps_the_negatives_the_packaged_model_injects() -> None:
    """The packaged model's cosines run lower: its gate injects the right note and nothing
    else; the candidate's run higher (0.80 right, 0.70 wrong), so the committed thresholds
    would inject both, and the fit moves the notes' cosine between the two."""
    theirs = _prompted(0.65, 0.55)
    mine = _prompted(0.80, 0.70)
    assert rates(theirs, GATE) == (1.0, 0.0)
    assert rates(mine, GATE) == (1.0, 1.0)

    fitted = fit_gate(mine, theirs, GATE)

    assert rates(mine, fitted) == (1.0, 0.0)
    assert 0.70 < fitted.note.cosine <= 0.80
    assert fitted.exchange == fitted.note
    assert fitted.turn == GATE.turn  # no conversation prompt: the turns' stay as they were


def test_without_a_cell_under_the_ceiling_the_notes_keep_the_committed_thresholds() -> None:
    theirs = _prompted(0.65, 0.55)
    mine = _prompted(0.95, 0.99)  # above the grid: every cell injects the wrong note

    fitted = fit_gate(mine, theirs, GATE)

    assert fitted.note == GATE.note


@pytest.mark.parametrize(
    ("side", "fit_gate", "embedder", "fits"),
    [
        ("tune", True, "mpnet-int8", True),
        ("held", True, "mpnet-int8", False),  # never tuned on the held-back prompts
        ("tune", False, "mpnet-int8", False),
        ("tune", True, "", False),  # the packaged model keeps the committed gate
    ],
)
def test_the_gate_is_fitted_on_the_tuning_side_only(
    side: str, fit_gate: bool, embedder: str, fits: bool
) -> None:
    assert fits_gate(side, fit_gate, embedder) is fits


def test_a_side_builds_only_its_own_conversations() -> None:
    # the held side alone needs the five held-back conversations, not the tuning side's five
    assert conversations("held") == HELD
    assert conversations("tune") == TUNE
    assert conversations("tune,held") == (*TUNE, *HELD)
