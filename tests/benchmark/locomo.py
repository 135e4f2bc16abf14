"""LoCoMo: every dialogue turn a document; recall of evidence turns and sessions per question."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
# Published points of comparison (see the hybrid-search issue).
REFERENCES = {
    "turn recall_any@5, BM25 (agentcairn)": 0.527,
    "turn recall_any@5, hybrid bge-small (agentcairn)": 0.546,
    "session R@10 (MemPalace, no rerank)": 0.603,
}


@dataclass(frozen=True, slots=True)
class Turn:
    conversation: str
    dia_id: str
    session: int
    speaker: str
    date: str
    text: str

    @property
    def ref(self) -> str:
        return f"{self.conversation}:{self.dia_id}"


@dataclass(frozen=True, slots=True)
class Question:
    conversation: str
    text: str
    category: int
    evidence: frozenset[str]

    @property
    def sessions(self) -> frozenset[int]:
        return frozenset(session_of(e) for e in self.evidence)


@dataclass(slots=True)
class Dataset:
    turns: list[Turn] = field(default_factory=list[Turn])
    questions: list[Question] = field(default_factory=list[Question])
    references: int = 0
    repaired: list[str] = field(default_factory=list[str])
    unusable: list[str] = field(default_factory=list[str])
    without_evidence: int = 0


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":", maxsplit=1)[0])


def parse_evidence(raw: str) -> tuple[list[str], bool]:
    """Normalised dia ids in one evidence string ("D8:6; D9:17", "D:11:26", "D30:05"), and
    whether any part of it could not be read."""
    found = [f"D{int(s)}:{int(t)}" for s, t in _EVIDENCE.findall(raw)]
    leftover = _EVIDENCE.sub("", raw).replace(";", " ").replace(",", " ").strip()
    return found, bool(leftover) or not found


def load(data: Path) -> Dataset:
    samples: list[Any] = json.loads((data / "locomo" / "locomo10.json").read_text(encoding="utf-8"))
    dataset = Dataset()
    for sample in samples:
        conversation = sample["sample_id"]
        known = _turns(sample, dataset.turns)
        for qa in sample["qa"]:
            if qa["category"] not in CATEGORIES:
                continue
            evidence: set[str] = set()
            for raw in qa.get("evidence", []):
                ids, broken = parse_evidence(raw)
                dataset.references += max(1, len(ids))
                if broken:
                    dataset.unusable.append(f"{conversation}: {raw!r}")
                elif [raw] != ids:
                    dataset.repaired.append(f"{conversation}: {raw!r} -> {', '.join(ids)}")
                for dia_id in ids:
                    if dia_id in known:
                        evidence.add(dia_id)
                    else:
                        dataset.unusable.append(f"{conversation}: {dia_id} (no such turn)")
            if not evidence:
                dataset.without_evidence += 1
                continue
            dataset.questions.append(
                Question(conversation, qa["question"], qa["category"], frozenset(evidence))
            )
    return dataset


def _turns(sample: Any, out: list[Turn]) -> set[str]:
    conversation = str(sample["sample_id"])
    talk: dict[str, Any] = sample["conversation"]
    known: set[str] = set()
    for key, value in talk.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match or not isinstance(value, list):
            continue
        date = str(talk.get(f"{key}_date_time", ""))
        turns: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        for turn in turns:
            text = str(turn["text"])
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            out.append(
                Turn(
                    conversation,
                    str(turn["dia_id"]),
                    int(match.group(1)),
                    str(turn["speaker"]),
                    date,
                    text,
                )
            )
            known.add(str(turn["dia_id"]))
    return known


METRICS = [
    f"{unit}_{how}@{k}" for unit in ("turn", "session") for how in ("any", "all") for k in (5, 10)
]


def evaluate(
    dataset: Dataset, search: Callable[[Question], Sequence[str]]
) -> dict[str, dict[str, float]]:
    """Recall per category ("1".."4") and over all questions: {group: {metric: value}},
    with "count" the number of questions in the group. `search` returns dia ids, best first."""
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    for question in dataset.questions:
        ranked = list(search(question))[:10]
        row: dict[str, float] = {}
        for k in (5, 10):
            top = set(ranked[:k])
            sessions = {session_of(d) for d in top}
            row[f"turn_any@{k}"] = float(bool(question.evidence & top))
            row[f"turn_all@{k}"] = float(question.evidence <= top)
            row[f"session_any@{k}"] = float(bool(question.sessions & sessions))
            row[f"session_all@{k}"] = float(question.sessions <= sessions)
        rows[str(question.category)].append(row)
        rows["all"].append(row)
    return {
        group: {"count": float(len(items)), **{m: mean(r[m] for r in items) for m in METRICS}}
        for group, items in rows.items()
    }
