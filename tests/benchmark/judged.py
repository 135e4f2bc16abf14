"""Judged query sets with a dev and a test split, for tuning on dev and reporting on test.

The splits were fixed before any tuning: BEIR NFCorpus uses its own dev and test queries;
LoCoMo splits by conversation (even positions of the sorted sample ids dev, odd test); the
golden set splits by a hash of the query text; the TIL set (til_eval, helper h17a's) keeps its
own frozen split. The golden set is in-sample
(it was used to choose memidx's settings long before this split): say so with its figures."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memidx.index.store import Filters
from memidx.search.lexical import Hit
from tests.benchmark import beir, golden, locomo, til_eval, turns
from tests.benchmark.workspace import beir_repo, locomo_repo, memidx, repo, til_repo, tree_stamp

SPLITS = ("dev", "test")


@dataclass(frozen=True, slots=True)
class Judged:
    """One query, what answers it, and the filters it runs under."""

    text: str
    relevant: frozenset[str]
    split: str
    filters: Filters = field(default_factory=Filters)
    grades: tuple[tuple[str, int], ...] = ()  # graded judgments where the set has them

    def gains(self) -> dict[str, int]:
        return dict(self.grades) if self.grades else dict.fromkeys(self.relevant, 1)


@dataclass(frozen=True, slots=True)
class JudgedSet:
    """A workspace, its queries, and how a hit is named in the judgments."""

    name: str
    root: Path
    queries: tuple[Judged, ...]
    key: Callable[[Hit], str]

    def split(self, name: str) -> Iterator[Judged]:
        return (q for q in self.queries if q.split == name)


def by_hash(text: str) -> str:
    """dev or test, fixed by the text alone (half each, in expectation)."""
    return SPLITS[hashlib.sha256(text.encode()).digest()[0] % 2]


def golden_set(work: Path, data: Path) -> JudgedSet:
    stamp = tree_stamp(golden.GOLDEN)
    root, _ = repo(work, "golden", stamp, golden.copy_notes)
    memidx(root, "ingest", quiet=True)
    found = tuple(Judged(q.text, frozenset(q.expected), by_hash(q.text)) for q in golden.queries())
    return JudgedSet("golden", root, found, lambda h: h.ref)


def til_set(work: Path, data: Path) -> JudgedSet:
    """The frozen TIL evaluation set (til_eval): answered queries and queries no note answers
    (every hit of those is irrelevant), in their own dev and test splits."""
    root = til_repo(work, data)
    found = tuple(
        Judged(q.text, frozenset(q.refs()), q.split)
        for split in SPLITS
        for answered in (True, False)
        for q in til_eval.queries(split, answered)
    )
    return JudgedSet("til", root, found, lambda h: h.ref)


def beir_set(work: Path, data: Path, splits: tuple[str, ...] = SPLITS) -> JudgedSet:
    root = beir_repo(work, data)
    found: list[Judged] = []
    for split in splits:
        texts, qrels = beir.split_queries(data, split)
        for qid, text in texts.items():
            grades = tuple((f"notes/{d}.md", g) for d, g in qrels[qid].items() if g > 0)
            found.append(Judged(text, frozenset(r for r, _ in grades), split, grades=grades))
    name = "nfcorpus" if splits == SPLITS else "nfcorpus-" + "-".join(splits)
    return JudgedSet(name, root, tuple(found), lambda h: h.ref)


def locomo_set(work: Path, data: Path) -> JudgedSet:
    dataset = locomo.load(data)
    root = locomo_repo(work, data, dataset)
    ids = turns.dia_ids(root)
    order = sorted({q.conversation for q in dataset.questions})
    split = {c: SPLITS[i % 2] for i, c in enumerate(order)}
    found = tuple(
        Judged(
            q.text,
            frozenset(f"{q.conversation}:{e}" for e in q.evidence),
            split[q.conversation],
            Filters(drawer=q.conversation),
        )
        for q in dataset.questions
    )
    return JudgedSet(
        "locomo", root, found, lambda h: f"{h.meta.get('drawer')}:{ids[str(h.meta['id'])]}"
    )


def til_sample_set(work: Path, data: Path) -> JudgedSet:
    """A subset of the TIL notes for slow candidates (tests/benchmark/til_sample.py); not run
    unless BENCH_SETS names it."""
    from tests.benchmark.til_sample import til_sample_set as build

    return build(work, data)


BUILDERS: dict[str, Callable[[Path, Path], JudgedSet]] = {
    "golden": golden_set,
    "til": til_set,
    "nfcorpus": beir_set,
    "locomo": locomo_set,
}


def beir_part_set(work: Path, data: Path) -> JudgedSet:
    """NFCorpus as far as it is embedded (tests/benchmark/beir_part.py); only when named."""
    from tests.benchmark.beir_part import beir_part_set as build

    return build(work, data)


def beir_train_set(work: Path, data: Path) -> JudgedSet:
    """NFCorpus' official train split (2,590 queries, none of them dev or test): more to fit
    the learned re-ranker on (tests/benchmark/rerank_fit.py); only when named."""
    return beir_set(work, data, ("train",))


OPTIONAL: dict[str, Callable[[Path, Path], JudgedSet]] = {
    "til-sample": til_sample_set,
    "nfcorpus-part": beir_part_set,
}
