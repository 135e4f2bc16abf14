"""A smaller TIL workspace for candidates too slow to embed all 1,874 notes on 2 shared cores
(`BENCH_SETS=til-sample`): every note that answers a TIL query of either split, plus a fixed
random sample of the others as distractors (BENCH_TIL_SAMPLE, default 300). Its figures compare
models with each other on the same notes; they are not the `til` set's figures."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

from tests.benchmark import corpus, til_eval
from tests.benchmark.judged import SPLITS, Judged, JudgedSet
from tests.benchmark.workspace import memidx, repo, tree_stamp

SEED = 17


def sample(data: Path, others: int) -> list[Path]:
    """The answering notes and `others` more, chosen by a fixed seed."""
    notes = corpus.til_notes(data)
    folder = data / "til-jbranchaud"
    answers = {a for q in til_eval.everything() for a in q.answers}
    rest = [p for p in notes if p.relative_to(folder).as_posix() not in answers]
    chosen = random.Random(SEED).sample(rest, min(others, len(rest)))
    return sorted([p for p in notes if p.relative_to(folder).as_posix() in answers] + chosen)


def til_sample_set(work: Path, data: Path) -> JudgedSet:
    others = int(os.environ.get("BENCH_TIL_SAMPLE", "300"))
    folder = data / "til-jbranchaud"

    def build(root: Path) -> None:
        for src in sample(data, others):
            out = root / "notes" / src.relative_to(folder)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out)

    stamp = f"{tree_stamp(folder)}:{others}:{SEED}"
    root, _ = repo(work, f"til-sample-{others}", stamp, build)
    memidx(root, "ingest", quiet=True)
    found = tuple(
        Judged(q.text, frozenset(q.refs()), q.split)
        for split in SPLITS
        for answered in (True, False)
        for q in til_eval.queries(split, answered)
    )
    return JudgedSet("til-sample", root, found, lambda h: h.ref)
