"""Judged query sets with a dev and a test split, for tuning on dev and reporting on test.

The splits were fixed before any tuning: BEIR NFCorpus uses its own dev and test queries;
LoCoMo splits by conversation (even positions of the sorted sample ids dev, odd test); the
golden set and the TIL queries split by a hash of the query text. The golden set is in-sample
(it was used to choose memidx's settings long before this split): say so with its figures."""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memidx.index.store import Filters
from memidx.search.lexical import Hit
from tests.benchmark import beir, golden, locomo, turns
from tests.benchmark.workspace import beir_repo, locomo_repo, memidx, repo, til_repo, tree_stamp

SPLITS = ("dev", "test")
TIL_QUERIES = Path(__file__).parent / "til" / "queries.toml"


@dataclass(frozen=True, slots=True)
class Judged:
    """One query, what answers it, and the filters it runs under."""

    text: str
    relevant: frozenset[str]
    split: str
    filters: Filters = field(default_factory=Filters)


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
    """helper h6's 40 TIL queries (written for the stopword evaluation)."""
    root = til_repo(work, data)
    items = tomllib.loads(TIL_QUERIES.read_text(encoding="utf-8"))["query"]
    found = tuple(
        Judged(str(q["q"]), frozenset({f"notes/{q['expected']}"}), by_hash(str(q["q"])))
        for q in items
    )
    return JudgedSet("til40", root, found, lambda h: h.ref)


def beir_set(work: Path, data: Path) -> JudgedSet:
    root = beir_repo(work, data)
    found: list[Judged] = []
    for split in SPLITS:
        texts, qrels = beir.split_queries(data, split)
        for qid, text in texts.items():
            relevant = frozenset(f"notes/{d}.md" for d, g in qrels[qid].items() if g > 0)
            found.append(Judged(text, relevant, split))
    return JudgedSet("nfcorpus", root, tuple(found), lambda h: h.ref)


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


BUILDERS: dict[str, Callable[[Path, Path], JudgedSet]] = {
    "golden": golden_set,
    "til40": til_set,
    "nfcorpus": beir_set,
    "locomo": locomo_set,
}
