"""The kinds a short run draws from a deck, not at random: a run of one deck's length tries
every kind of operation and of change, in about the proportions of the weights.

`make bench ONLY=gitops` draws thousands of operations at random by their weights, and a kind
of 3 in 115 comes up anyway. The suite runs few: at random, 80 operations of one seed ran no
pull and no reset, and its few changes no symlink. Drawn from a deck, a third as many per seed
try each kind (one that cannot run then goes back among the cards left, at a random depth, and
comes again later; an operation whose every card left cannot run draws a kind at random)."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping

# the changes of GitOpsDriver._change, by the band of its random `choice` that picks each
CHANGES: dict[str, tuple[float, float]] = {
    "add": (0.0, 0.3),
    "edit": (0.3, 0.55),
    "delete": (0.55, 0.63),
    "rename": (0.63, 0.74),
    "copy": (0.74, 0.77),
    "unindexable": (0.77, 0.85),
    "symlink": (0.85, 0.88),
    "non-note": (0.88, 0.93),
    "restore": (0.93, 0.97),
    "move": (0.97, 1.0),
}


class Deck:
    """Each kind `ceil(weight / share)` times, shuffled by `rng`, dealt from the top."""

    def __init__(self, weights: Mapping[str, float], share: float, rng: random.Random) -> None:
        self.full = [k for k, w in weights.items() for _ in range(math.ceil(w / share))]
        self.rng = rng
        self.cards: list[str] = []

    def draw(self, refused: Collection[str] = ()) -> str | None:
        """The top card of a kind not `refused` (a new deck dealt when none is left); None when
        each card left is of a kind refused."""
        if not self.cards:
            self.cards = self.rng.sample(self.full, len(self.full))
        for at in range(len(self.cards) - 1, -1, -1):
            if self.cards[at] not in refused:
                return self.cards.pop(at)
        return None

    def put_back(self, kind: str) -> None:
        """`kind` could not run now: back among the cards left, at a random depth, to be drawn
        again later. Under them all, the kinds that wait for another's move (a pull for a push)
        piled up at the end of a run, and each of its last operations was a commit once 30
        draws of them could not run."""
        self.cards.insert(self.rng.randrange(len(self.cards) + 1), kind)

    def choice(self) -> float:
        """A value of GitOpsDriver._change's `choice` in the band of the next change drawn."""
        drawn = self.draw()
        assert drawn is not None
        low, high = CHANGES[drawn]
        return low + (high - low) * self.rng.random()


def change_weights() -> dict[str, float]:
    """Each change's share of `choice`, in percent."""
    return {kind: round((high - low) * 100) for kind, (low, high) in CHANGES.items()}
