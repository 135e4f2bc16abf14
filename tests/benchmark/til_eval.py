"""The frozen TIL evaluation set: developer queries over ../shared/data/til-jbranchaud, each with
every note that fully answers it, and queries no note answers, split into dev and test once,
before any tuning (how it was made: tests/benchmark/til/eval/README.md).

Tune on `dev` only. `test` is for the figures reported after the tuning is over.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

EVAL = Path(__file__).parent / "til" / "eval"
SPLITS = ("dev", "test")
STYLES = ("keyword", "paraphrase", "symptom")
WRITTEN = ("blind", "title-aware")
MIN_WORDS, MAX_WORDS = 4, 12
_ANSWER = re.compile(r"[a-z0-9_-]+/[^/\s]+\.md")


@dataclass(frozen=True, slots=True)
class EvalQuery:
    """One query: its text, how it was written, and the notes that answer it (none: a negative)."""

    id: str
    text: str
    style: str
    topic: str
    written: str
    answers: tuple[str, ...]  # paths relative to the TIL folder, e.g. "git/caching-credentials.md"
    split: str

    def refs(self) -> tuple[str, ...]:
        """The answers as memidx refs when the TIL notes sit under notes/ (corpus.write_til)."""
        return tuple(f"notes/{a}" for a in self.answers)


def file_of(split: str, answered: bool) -> Path:
    return EVAL / (f"{split}.jsonl" if answered else f"none-{split}.jsonl")


def queries(split: str, answered: bool = True) -> list[EvalQuery]:
    """The answered queries of a split, or with answered=False its no-answer queries."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; one of {SPLITS}")
    lines = file_of(split, answered).read_text(encoding="utf-8").splitlines()
    return [_parse(line) for line in lines if line.strip()]


def everything() -> list[EvalQuery]:
    """All four files: answered and no-answer queries of both splits."""
    return [q for split in SPLITS for answered in (True, False) for q in queries(split, answered)]


def _parse(line: str) -> EvalQuery:
    raw = json.loads(line)
    if not isinstance(raw, dict):
        raise ValueError(f"not a JSON object: {line[:60]}")
    record = cast("dict[str, object]", raw)

    def text(name: str) -> str:
        value = record.get(name)
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a string: {line[:60]}")
        return value

    answers = record.get("answers")
    if not isinstance(answers, list):
        raise ValueError(f"answers must be a list: {line[:60]}")
    items = cast("list[object]", answers)
    paths = tuple(a for a in items if isinstance(a, str))
    if len(paths) != len(items):
        raise ValueError(f"answers must be paths (strings): {line[:60]}")
    return EvalQuery(
        text("id"),
        text("query"),
        text("style"),
        text("topic"),
        text("written"),
        paths,
        text("split"),
    )


def normalised(text: str) -> str:
    return " ".join(text.lower().split())


def frozen_splits(items: Iterable[EvalQuery]) -> dict[str, str]:
    """The split rule, applied to answered and no-answer queries separately: within each
    (style, written) stratum, order by the SHA-256 of the query text; even places go to dev."""
    strata: defaultdict[tuple[bool, str, str], list[EvalQuery]] = defaultdict(list)
    for q in items:
        strata[(bool(q.answers), q.style, q.written)].append(q)
    placed: dict[str, str] = {}
    for members in strata.values():
        ordered = sorted(members, key=lambda q: hashlib.sha256(q.text.encode()).hexdigest())
        for place, q in enumerate(ordered):
            placed[q.id] = SPLITS[place % 2]
    return placed


def problems(items: Sequence[EvalQuery], til: Path | None = None) -> list[str]:
    """Everything wrong with a set of queries (empty when it is sound); with `til`, also every
    answer that is not a note in that folder."""
    found: list[str] = []
    for q in items:
        found += [f"{q.id}: {p}" for p in _record_problems(q)]
        if til is not None:
            found += [f"{q.id}: no note {a} in {til}" for a in q.answers if not (til / a).is_file()]
    found += _overlaps(items)
    placed = frozen_splits(items)
    found += [
        f"{q.id}: in {q.split}, the frozen rule puts it in {placed[q.id]}"
        for q in items
        if placed[q.id] != q.split
    ]
    return found


def _record_problems(q: EvalQuery) -> list[str]:
    found: list[str] = []
    if q.id != "til-" + hashlib.sha256(q.text.encode()).hexdigest()[:10]:
        found.append("id is not til- and the first 10 hex digits of the query's SHA-256")
    if q.style not in STYLES:
        found.append(f"style {q.style!r} is not one of {STYLES}")
    if q.written not in WRITTEN:
        found.append(f"written {q.written!r} is not one of {WRITTEN}")
    if q.split not in SPLITS:
        found.append(f"split {q.split!r} is not one of {SPLITS}")
    if not MIN_WORDS <= len(q.text.split()) <= MAX_WORDS:
        found.append(f"{len(q.text.split())} words, not {MIN_WORDS}-{MAX_WORDS}")
    if list(q.answers) != sorted(set(q.answers)):
        found.append("answers are not sorted and distinct")
    found += [
        f"answer {a!r} is not <folder>/<note>.md" for a in q.answers if not _ANSWER.fullmatch(a)
    ]
    return found


def _overlaps(items: Sequence[EvalQuery]) -> list[str]:
    seen: dict[str, EvalQuery] = {}
    found: list[str] = []
    for q in items:
        other = seen.setdefault(normalised(q.text), q)
        if other is not q:
            found.append(f"{q.id}: the query {q.text!r} is also {other.id} ({other.split})")
    return found


def til_folder(root: Path = Path(__file__).parents[2]) -> Path:
    """The TIL notes: $DATA/til-jbranchaud (as `make bench` takes DATA), else ../shared/data."""
    data = Path(os.environ["DATA"]) if os.environ.get("DATA") else root / ".." / "shared" / "data"
    return data / "til-jbranchaud"
