"""The golden recall set: realistic notes and developer queries with known answers."""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

GOLDEN = Path(__file__).parent / "golden"


@dataclass(frozen=True, slots=True)
class Query:
    """A question and the notes (refs under notes/) that answer it."""

    text: str
    expected: tuple[str, ...]
    style: str


@dataclass(frozen=True, slots=True)
class Scores:
    """Recall figures over a query set."""

    recall_at_5: float
    mrr: float
    empty: int
    misses: tuple[tuple[str, tuple[str, ...]], ...]
    count: int


def queries() -> list[Query]:
    data = tomllib.loads((GOLDEN / "queries.toml").read_text(encoding="utf-8"))
    return [
        Query(q["q"], tuple(f"notes/{e}" for e in q["expected"]), q["style"]) for q in data["query"]
    ]


def copy_notes(dest: Path) -> None:
    """Put the golden notes under dest/notes/."""
    shutil.copytree(GOLDEN / "notes", dest / "notes", dirs_exist_ok=True)


def score(query_set: Sequence[Query], search: Callable[[str], Sequence[str]], k: int = 5) -> Scores:
    """Macro recall@k, MRR@10 and the count of empty results of `search` (refs, best first)."""
    recalls: list[float] = []
    reciprocal: list[float] = []
    empty = 0
    misses: list[tuple[str, tuple[str, ...]]] = []
    for query in query_set:
        found = list(search(query.text))
        empty += not found
        top = found[:k]
        recalls.append(sum(e in top for e in query.expected) / len(query.expected))
        ranks = [found.index(e) + 1 for e in query.expected if e in found[:10]]
        reciprocal.append(1 / min(ranks) if ranks else 0.0)
        if recalls[-1] < 1:
            misses.append((query.text, tuple(found[:3])))
    return Scores(mean(recalls), mean(reciprocal), empty, tuple(misses), len(query_set))
