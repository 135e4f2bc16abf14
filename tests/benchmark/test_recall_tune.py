"""The recall bench's grid search tunes the gate the hook runs: a cell keeps the committed
gate's `known` floor, so a prompt the floor stops stays stopped while the cosines move."""

from __future__ import annotations

from memidx.agents.block import Recalled
from memidx.agents.gate import GATE, Signal
from memidx.agents.recall import Candidate
from tests.benchmark.recall import Prompt, grid, rates, tune


def turn(ref: str, cosine: float, known: float) -> Candidate:
    recalled = Recalled("a turn", ref, 1, "what was said", "turn")
    return Candidate(f"turn:{ref}", recalled, Signal(cosine, 0.0, None, "turn", known))


def test_every_cell_of_the_grid_keeps_the_known_floor() -> None:
    cells = grid(GATE.turn)

    assert GATE.turn.known > 0
    assert cells and all(cell.known == GATE.turn.known for cell in cells)


def test_tuning_sees_what_the_known_floor_stops() -> None:
    """A close turn for a prompt about things the memory never heard of is stopped by the
    floor: the tuned gate may lower the turns' cosine to catch the weak right turn."""
    right = Prompt("when did Caroline go to the support group", "locomo+", frozenset({"turn:a"}))
    strange = Prompt("when did Zorblat visit Quxville", "locomo-", frozenset())
    measured = [
        (right, [turn("a", 0.45, 1.0)]),
        (strange, [turn("b", 0.90, GATE.turn.known / 2)]),
    ]

    tuned = tune(measured)

    assert tuned.turn.known == GATE.turn.known
    assert tuned.turn.cosine <= 0.45
    assert rates(measured, tuned)[:2] == (1.0, 0.0)
