"""The cross-encoder's logit as the recall gate's signal (issues 15 and 17), on the TIL side of
`recall_held`: the frozen TIL queries (answered: positives; unanswered: negatives) and the
off-topic and trivial prompts, against the 1,871 TIL notes. The LoCoMo side is not measured
here (it needs ten conversation workspaces, each embedded).

Each prompt's candidates (the 12 the gate sees) are scored by the cross-encoder on what the
hook would inject of them: the title and the snippet (block.SNIPPET_CHARS). Gates: the
committed one; the logit alone (a hit passes at logit >= t, the best 3 by logit injected); both
(a hit passes both, injected in the committed order). The thresholds are chosen on the dev
queries (`--split dev`, a grid), then run once on test (`--split test --threshold t ...`).

BENCH_CE_DIR=... .venv-dev/bin/python -m tests.benchmark.ce_gate --til W/til --split dev
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from memidx.agents.block import MAX_HITS, SNIPPET_CHARS, recall_block
from memidx.agents.gate import GATE, pick
from memidx.agents.recall import Candidate, Recaller, shown_keys
from memidx.config import load_config
from tests.benchmark.cross_encoder import encoder
from tests.benchmark.recall_held import Labeled, Outcome, measure, summary, til_prompts
from tests.benchmark.refits import COMMITTED, refitted
from tests.benchmark.timing import percentile

Scored = list[tuple[Labeled, list[Candidate], list[float]]]


def shown(cands: Sequence[Candidate]) -> list[str]:
    """What the cross-encoder reads of each candidate: what the hook would show of it."""
    return [f"{c.recalled.title}\n{c.recalled.snippet[:SNIPPET_CHARS]}" for c in cands]


def outcome(prompt: Labeled, chosen: Sequence[Candidate]) -> Outcome:
    block = recall_block([c.recalled for c in chosen])
    return Outcome(prompt, shown_keys(block, chosen), len(block))


def committed(scored: Scored, floor: float | None = None) -> list[Outcome]:
    """The committed gate; with `floor`, a hit must also have a logit at least that."""
    found: list[Outcome] = []
    for prompt, cands, logits in scored:
        keep = pick([c.signal for c in cands], len(cands), GATE)
        if floor is not None:
            keep = [i for i in keep if logits[i] >= floor]
        found.append(outcome(prompt, [cands[i] for i in keep[:MAX_HITS]]))
    return found


def by_logit(scored: Scored, floor: float) -> list[Outcome]:
    """The logit alone: the best MAX_HITS at `floor` or above."""
    found: list[Outcome] = []
    for prompt, cands, logits in scored:
        ranked = sorted(range(len(cands)), key=lambda i: -logits[i])
        found.append(outcome(prompt, [cands[i] for i in ranked if logits[i] >= floor][:MAX_HITS]))
    return found


def rates(outcomes: Sequence[Outcome]) -> tuple[float, float]:
    pos = [o for o in outcomes if o.prompt.positive]
    neg = [o for o in outcomes if not o.prompt.positive]
    right = sum(bool(set(o.injected) & o.prompt.right) for o in pos) / max(1, len(pos))
    return right, sum(bool(o.injected) for o in neg) / max(1, len(neg))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ce_gate")
    parser.add_argument("--til", type=Path, required=True, help="a TIL workspace, embedded")
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument(
        "--threshold", type=float, action="append", help="a logit chosen on dev (test only)"
    )
    parser.add_argument("--tokens", type=int, default=256)
    args = parser.parse_args(argv)
    recaller = Recaller(load_config(args.til))
    labeled = til_prompts(args.split)
    with refitted(COMMITTED):
        measured = measure(labeled, {"til": recaller})
    model = encoder(args.tokens)
    scored: Scored = []
    took: list[float] = []
    for prompt, cands in measured:
        start = time.perf_counter()
        logits = model.run(prompt.text, shown(cands)) if cands else []
        if cands:
            took.append((time.perf_counter() - start) * 1000)
        scored.append((prompt, cands, logits))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    threads = os.environ.get("BENCH_CE_THREADS", "1")
    print(f"TIL {args.split}: {len(scored)} prompts; cross-encoder over each prompt's "
          f"candidates ({threads} thread(s)): p50 {percentile(took, 50):.0f} ms, "
          f"p95 {percentile(took, 95):.0f} ms; load average {load}")  # fmt: skip
    summary("committed", committed(scored))
    for t in args.threshold or ():
        summary(f"logit >= {t}", by_logit(scored, t))
        summary(f"committed + logit >= {t}", committed(scored, t))
    if args.threshold:
        return 0
    print("  threshold -> right, injected: logit alone | committed + logit")
    for step in range(-16, 17):
        t = step / 2
        (a_pos, a_neg), (b_pos, b_neg) = rates(by_logit(scored, t)), rates(committed(scored, t))
        print(f"    {t:+5.1f}   {a_pos:.3f} {a_neg:.3f} | {b_pos:.3f} {b_neg:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
