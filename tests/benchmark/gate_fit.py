"""The recall gate for a candidate embedding model (`recall_held --embedder SLUG`): recall over
each workspace's copy with the candidate's vectors, and thresholds chosen for its cosines on
the tuning side only (`--fit-gate`).

A candidate's cosines run on another scale than all-MiniLM-L6-v2's, so MiniLM's thresholds say
little about it. The fit is per kind of hit, as the committed gate was chosen: the notes'
thresholds on the TIL memory's prompts, the turns' on the conversations' (each memory holds one
kind). Each keeps the most right hits whose share of negatives injected on the same prompts
stays at or below what MiniLM with the committed gate injects (ties: fewer injected, then the
stricter thresholds), so the two models are compared at the same false injections.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from memidx.agents.block import MAX_HITS, recall_block
from memidx.agents.gate import Gate, Signal, Thresholds, pick
from memidx.agents.recall import Candidate, Recaller, shown_keys
from memidx.embed.embedders import Embedder
from memidx.frozen import replace
from tests.benchmark.embedder_candidates import index_of
from tests.benchmark.lab import QueryVectors
from tests.benchmark.recall import grid
from tests.benchmark.refits import gate_of


class Asked(Protocol):
    """A prompt of recall_held: which memory it asks, whether it has an answer, the answer."""

    @property
    def memory(self) -> str: ...

    @property
    def positive(self) -> bool: ...

    @property
    def right(self) -> frozenset[str]: ...


class CandidateRecaller(Recaller):
    """Recall over the workspace's copy with a candidate model's vectors; every prompt's
    vector is embedded once (the recall asks for it twice)."""

    def __init__(self, root: Path, slug: str, embedder: Embedder) -> None:
        index = index_of(root, slug, embedder)
        index.store.conn.close()  # the recall opens the index per prompt
        super().__init__(index.config)
        self._queries = QueryVectors(embedder)

    def embedder(self) -> Embedder:
        return self._queries


@dataclass(slots=True)
class Prompted:
    """A measured prompt: its candidates' signals, the candidates with their neighbouring
    turns (what the gate would inject), and the outcome of each choice made so far."""

    prompt: Asked
    signals: list[Signal]
    around: list[Candidate]
    seen: dict[tuple[int, ...], bool] = field(default_factory=dict[tuple[int, ...], bool])

    def outcome(self, gate: Gate) -> bool:
        """Positives: the right hit was injected; negatives: something was."""
        chosen = tuple(pick(self.signals, MAX_HITS, gate))
        if chosen not in self.seen:
            picked = [self.around[i] for i in chosen]
            block = recall_block([c.recalled for c in picked])
            shown = set(shown_keys(block, picked))
            right = bool(shown & self.prompt.right)
            self.seen[chosen] = right if self.prompt.positive else bool(block)
        return self.seen[chosen]


def prompted(
    measured: Sequence[tuple[Asked, list[Candidate]]], recallers: dict[str, Recaller]
) -> list[Prompted]:
    """Each measured prompt with its candidates' neighbouring turns looked up once."""
    return [
        Prompted(p, [c.signal for c in cands], recallers[p.memory].with_neighbours(cands))
        for p, cands in measured
    ]


def rates(prompts: Sequence[Prompted], gate: Gate) -> tuple[float, float]:
    """(share of positives whose right hit is injected, share of negatives injected)."""
    pos = [p.outcome(gate) for p in prompts if p.prompt.positive]
    neg = [p.outcome(gate) for p in prompts if not p.prompt.positive]
    return sum(pos) / max(1, len(pos)), sum(neg) / max(1, len(neg))


EVERY_WORD = (None, 0.40, 0.45, 0.50, 0.55, 0.60)  # the notes' path for every prompt word


def note_cells(base: Thresholds) -> list[Thresholds]:
    """recall.grid's cells, each with every path for a note with every word of the prompt."""
    return [
        replace(cell, cosine_with_every_word=every)
        for cell, every in itertools.product(grid(base), EVERY_WORD)
        if every is None or every <= cell.cosine
    ]


def best(
    prompts: Sequence[Prompted], gate: Gate, kind: str, cells: Sequence[Thresholds], ceiling: float
) -> Thresholds:
    """The cell with the most right hits among those injecting on at most `ceiling` of the
    negatives (ties: fewer injected, then the stricter thresholds); `gate`'s own without one,
    or without prompts to choose on."""
    chosen: tuple[tuple[float, ...], Thresholds] | None = None
    if not prompts:
        return gate.of(kind)
    for cell in cells:
        pos, neg = rates(prompts, replace(gate, **{kind: cell}))
        every = cell.cosine_with_every_word or 1.0
        key = (pos, -neg, cell.cosine, cell.cosine_with_words, cell.word_share, every)
        if neg <= ceiling and (chosen is None or key > chosen[0]):
            chosen = (key, cell)
    return chosen[1] if chosen else gate.of(kind)


def fit_gate(mine: Sequence[Prompted], theirs: Sequence[Prompted], gate: Gate) -> Gate:
    """Thresholds for `mine` (the candidate's measured prompts), per kind, at the negatives
    `theirs` (the same prompts measured with the packaged model) inject with `gate`."""
    notes = [p for p in mine if p.prompt.memory == "til"]
    turns = [p for p in mine if p.prompt.memory != "til"]
    note_ceiling = rates([p for p in theirs if p.prompt.memory == "til"], gate)[1]
    turn_ceiling = rates([p for p in theirs if p.prompt.memory != "til"], gate)[1]
    note = best(notes, gate, "note", note_cells(gate.note), note_ceiling)
    turn = best(turns, gate, "turn", grid(gate.turn), turn_ceiling)
    return gate_of(note, turn)
