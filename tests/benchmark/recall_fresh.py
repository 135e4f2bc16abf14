"""The committed recall gate on a LoCoMo conversation pair nobody tuned on or looked at:
`python -m tests.benchmark.recall_fresh MEMORY OTHER [--data DIR] [--work DIR]`, e.g.
`conv-41 conv-42`. The memory is MEMORY's turns alone (as `make bench ONLY=recall` builds
its conversation workspace); positives are MEMORY's questions, negatives OTHER's questions,
off-topic and trivial prompts. The bench's own pair is conv-30 / conv-26."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tests.benchmark import locomo, recall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("memory", help="the conversation filed as memory, e.g. conv-41")
    parser.add_argument("other", help="the conversation whose questions are negatives")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=Path(".memidx/bench/fresh"))
    args = parser.parse_args()
    recall.MEMORY_CONVERSATION, recall.OTHER_CONVERSATION = args.memory, args.other
    dataset = locomo.load(args.data)
    started = time.perf_counter()
    talk = recall.locomo_workspace(args.work / args.memory, args.data, dataset)
    print(f"workspace {talk} ready in {time.perf_counter() - started:.0f} s")
    labeled = [p for p in recall.prompts(talk, dataset) if p.group != "til+"]
    measured = recall._measure(talk, labeled)  # pyright: ignore[reportPrivateUsage]
    recall.report(f"fresh {args.memory} / {args.other}", measured, recall.GATE)
    positives = [m for m in measured if m[0].positive]
    print(f"  right hit among the candidates at all: {recall.ceiling(positives):.3f}")


if __name__ == "__main__":
    main()
