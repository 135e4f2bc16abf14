"""`python -m tests.benchmark.recall_held [--data DIR] [--work DIR]`: the recall gate on a
labeled set split before any tuning, so its figures hold for data nobody tuned on.

Positives are real questions, not note titles: the frozen TIL eval queries (keyword,
paraphrase and symptom styles, labeled with every note that answers them; tests/benchmark/til)
against the 1,871 TIL notes, and LoCoMo questions (categories 1-4) against their own
conversation's turns. Negatives: the TIL queries no note answers, another conversation's
questions, off-topic and trivial prompts (recall.OFF_TOPIC, recall.TRIVIAL) against every
memory. The split is fixed here: TUNE is the TIL dev queries and five conversations (the ones
the gate's earlier tuning and checks looked at); HELD is the TIL test queries and five other
conversations. Off-topic and trivial prompts split by the hash of their text (recall.Prompt).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memidx.agents.block import MAX_HITS, recall_block
from memidx.agents.gate import GATE, Gate, Thresholds, pick, trivial
from memidx.agents.recall import CANDIDATES, Candidate, Recaller, shown_keys
from memidx.config import load_config
from memidx.frozen import replace
from tests.benchmark import locomo, recall, til_eval
from tests.benchmark.embedder_candidates import EMBEDDERS
from tests.benchmark.gate_fit import CandidateRecaller, fit_gate, prompted
from tests.benchmark.held_workspaces import conversation_workspace, til_workspace, turn_keys
from tests.benchmark.refits import COMMITTED, REFITS, refitted
from tests.benchmark.timing import percentile

# Each conversation's negatives are the questions of the next one on its side (a cycle).
TUNE = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
HELD = ("conv-44", "conv-47", "conv-48", "conv-49", "conv-50")
SIDES = {"tune": (TUNE, "dev"), "held": (HELD, "test")}


@dataclass(frozen=True, slots=True)
class Labeled:
    """A prompt asked of one memory, and the keys of the hits that answer it."""

    memory: str  # "til" or a conversation id
    text: str
    group: str  # til+, locomo+ (positives); til-, locomo-, off-topic-, trivial-
    right: frozenset[str]

    @property
    def positive(self) -> bool:
        return self.group.endswith("+")


def chatter(memory: str, split: str) -> list[Labeled]:
    want_dev = split == "dev"
    made = [recall.Prompt(p, "off-topic-", frozenset()) for p in recall.OFF_TOPIC]
    made += [recall.Prompt(p, "trivial-", frozenset()) for p in recall.TRIVIAL]
    return [Labeled(memory, p.text, p.group, frozenset()) for p in made if p.dev == want_dev]


def til_prompts(split: str) -> list[Labeled]:
    found = [
        Labeled("til", q.text, "til+", frozenset(f"note:{r}" for r in q.refs()))
        for q in til_eval.queries(split)
    ]
    found += [Labeled("til", q.text, "til-", frozenset()) for q in til_eval.queries(split, False)]
    return found + chatter("til", split)


def conversation_prompts(
    dataset: locomo.Dataset, convs: Sequence[str], split: str, keys: Callable[[str], dict[str, str]]
) -> list[Labeled]:
    found: list[Labeled] = []
    for i, conv in enumerate(convs):
        other = convs[(i + 1) % len(convs)]
        key = keys(conv)
        for q in dataset.questions:
            if q.conversation == conv:
                right = frozenset(key[e] for e in q.evidence if e in key)
                found.append(Labeled(conv, q.text, "locomo+", right))
            elif q.conversation == other:
                found.append(Labeled(conv, q.text, "locomo-", frozenset()))
        found += chatter(conv, split)
    return found


# The gate before this set existed (2026-12-01): no `known` floor, no neighbouring turns.
BEFORE = Gate(note=Thresholds(0.62, 0.40, 0.60), turn=Thresholds(0.50, 0.38, 0.50))
GROUPS = ("til+", "locomo+", "til-", "locomo-", "off-topic-", "trivial-")
NO_FLOOR = replace(GATE, turn=replace(GATE.turn, known=0.0))
SUFFIXED = ("til+", "til-", "locomo+", "locomo-")  # the chatter stays as it is


def with_suffix(prompt: Labeled, suffix: str) -> Labeled:
    return Labeled(prompt.memory, prompt.text + suffix, prompt.group, prompt.right)


Measured = list[tuple[Labeled, list[Candidate]]]


@dataclass(frozen=True, slots=True)
class Outcome:
    prompt: Labeled
    injected: tuple[str, ...]  # keys the block shows
    chars: int


def judge(
    measured: Sequence[tuple[Labeled, list[Candidate]]],
    recallers: dict[str, Recaller],
    gate: Gate,
    neighbours: bool,
) -> list[Outcome]:
    """What the gate injects for each measured prompt (its block's keys and size)."""
    found: list[Outcome] = []
    for prompt, cands in measured:
        chosen = [cands[i] for i in pick([c.signal for c in cands], MAX_HITS, gate)]
        if neighbours:
            chosen = recallers[prompt.memory].with_neighbours(chosen)
        block = recall_block([c.recalled for c in chosen])
        found.append(Outcome(prompt, shown_keys(block, chosen), len(block)))
    return found


def summary(label: str, outcomes: Sequence[Outcome]) -> None:
    """Both rates pooled and per group, and the characters injected per prompt."""
    pos = [o for o in outcomes if o.prompt.positive]
    neg = [o for o in outcomes if not o.prompt.positive]
    right = sum(bool(set(o.injected) & o.prompt.right) for o in pos) / max(1, len(pos))
    wrong = sum(bool(o.injected) for o in neg) / max(1, len(neg))
    print(f"  {label}: right injected {right:.3f} of {len(pos)} positives (target >= 0.85), "
          f"injected on {wrong:.3f} of {len(neg)} negatives (target <= 0.10)")  # fmt: skip
    for source in ("til", "locomo"):
        part = [o for o in outcomes if (o.prompt.memory == "til") == (source == "til")]
        chars = [o.chars for o in part]
        if not chars:
            continue
        print(f"    {source:<7} chars per prompt p50 {percentile(chars, 50):.0f} "
              f"p95 {percentile(chars, 95):.0f}")  # fmt: skip
    for group in GROUPS:
        part = [o for o in outcomes if o.prompt.group == group]
        if not part:
            continue
        if group.endswith("+"):
            rate = sum(bool(set(o.injected) & o.prompt.right) for o in part) / max(1, len(part))
        else:
            rate = sum(bool(o.injected) for o in part) / max(1, len(part))
        what = "right" if group.endswith("+") else "injected"
        print(f"    {group:<11} n={len(part):<4} {what} {rate:.3f}")


# The gate off: every candidate passes, and the 3 most relevant are injected.
OPEN = Gate(note=Thresholds(-1.0, -1.0, 0.0), turn=Thresholds(-1.0, -1.0, 0.0))


def oracle(
    measured: Sequence[tuple[Labeled, list[Candidate]]], recallers: dict[str, Recaller]
) -> None:
    """Per group, the share of positives whose right hit is among the candidates the gate sees
    (the ceiling any gate reaches with today's search), and among the MAX_HITS of them it would
    inject with every candidate passing (the most relevant, turns with their neighbours: no
    ceiling, as a gate that turns away more relevant wrong hits lets a lower right one in)."""
    positives = [(p, c) for p, c in measured if p.positive]
    outcomes = judge(positives, recallers, OPEN, neighbours=True)
    for group in ("all", *(g for g in GROUPS if g.endswith("+"))):
        part = [(p, c, o) for (p, c), o in zip(positives, outcomes, strict=True)
                if group in ("all", p.group)]  # fmt: skip
        if not part:
            continue
        n = len(part)
        among = sum(any(x.key in p.right for x in c) for p, c, _ in part) / n
        best = sum(bool(set(o.injected) & p.right) for p, _, o in part) / n
        print(f"  oracle, {group:<8} n={len(part):<4} right among the {CANDIDATES} candidates "
              f"{among:.3f}, among the {MAX_HITS} most relevant (turns with their neighbours) "
              f"{best:.3f}")  # fmt: skip


def measure(labeled: Sequence[Labeled], recallers: dict[str, Recaller]) -> Measured:
    """Each prompt with the candidates the gate sees (none for a trivial prompt)."""
    return [(p, [] if trivial(p.text) else recallers[p.memory].candidates(p.text)) for p in labeled]


def conversations(sides: str) -> tuple[str, ...]:
    """The conversations of the sides asked for, the only ones built (`tune,held`: all ten)."""
    return tuple(conv for side in sides.split(",") for conv in SIDES[side][0])


def fits_gate(side: str, fit_gate: bool, embedder: str) -> bool:
    """Whether this side's run chooses the candidate's thresholds: the tuning side's alone,
    so the held side is measured with thresholds it never saw."""
    return fit_gate and bool(embedder) and side == "tune"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=Path(".memidx/bench/held"))
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--sides", default="tune,held", help="tune, held or both")
    parser.add_argument(
        "--suffix",
        default="",
        help="words added to every TIL and LoCoMo prompt, e.g. ' for kestrelctl' (a name no "
        "memory has, as a real prompt names a new project or path)",
    )
    parser.add_argument(
        "--embedder",
        default="",
        help="a candidate embedding model (embedder_candidates.py): its vectors in a copy of "
        "each workspace's index, memidx's models refitted for it (refits.py)",
    )
    parser.add_argument(
        "--fit-gate",
        action="store_true",
        help="with --embedder: choose its thresholds on the tuning side (gate_fit.py)",
    )
    args = parser.parse_args()
    dataset = locomo.load(args.data)
    roots = {"til": til_workspace(args.work, args.data)}
    for conv in conversations(args.sides):
        roots[conv] = conversation_workspace(args.work, args.data, dataset, conv)
        print(f"workspace {roots[conv]} ready", flush=True)
    if args.build_only:
        return
    packaged: dict[str, Recaller] = {m: Recaller(load_config(r)) for m, r in roots.items()}
    recallers: dict[str, Recaller] = packaged
    refit = COMMITTED
    if args.embedder:
        model = EMBEDDERS[args.embedder]()
        recallers = {m: CandidateRecaller(r, args.embedder, model) for m, r in roots.items()}
        refit = REFITS.get(args.embedder, COMMITTED)
    for side in args.sides.split(","):
        convs, split = SIDES[side]
        labeled = til_prompts(split) + conversation_prompts(
            dataset, convs, split, lambda c: turn_keys(roots[c])
        )
        if args.suffix:
            labeled = [with_suffix(p, args.suffix) for p in labeled if p.group in SUFFIXED]
        with refitted(refit):
            measured = measure(labeled, recallers)
        print(f"{side} side: TIL {split} queries, conversations {', '.join(convs)}")
        summary("before", judge(measured, recallers, BEFORE, neighbours=False))
        summary("committed", judge(measured, recallers, GATE, neighbours=True))
        summary("committed, no known floor", judge(measured, recallers, NO_FLOOR, neighbours=True))
        if refit.gate != GATE:
            summary("refit gate", judge(measured, recallers, refit.gate, neighbours=True))
        oracle(measured, recallers)
        if fits_gate(side, args.fit_gate, args.embedder):
            theirs = prompted(measure(labeled, packaged), packaged)
            fitted = fit_gate(prompted(measured, recallers), theirs, GATE)
            print(f"  gate fitted for {args.embedder} on this side: {fitted}")
            summary("fitted gate", judge(measured, recallers, fitted, neighbours=True))


if __name__ == "__main__":
    main()
