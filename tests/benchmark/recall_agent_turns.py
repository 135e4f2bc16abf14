"""`python -m tests.benchmark.recall_agent_turns [--data DIR] [--work DIR] [--splits dev,test]
[--suffix WORDS]`: the recall gate on turns shaped like the ones agents file (a prompt, the
assistant's answer and its tool notes), which LoCoMo's one-line chat turns do not measure.

The memory: each of the 1,871 TIL notes made into one exchange and filed as a `turn` as the
Stop hook files one (tests/benchmark/agent_exchanges.py: the request a chatty phrasing of the
note's title, the answer a line of chatter, a tool call, the note's prose with each code block
a `[tool Bash: …]` note and a closing line; one in 3 short), a topic folder's notes sessions of
6 exchanges and one of chatter, and exchanges that only mention a note's topic (one note in 4).
These are ours, derived from the notes. Positives: the frozen TIL eval queries (right = the
exchange made from an answer note); negatives: the no-answer queries, off-topic and trivial
prompts. Dev and test as the eval set splits them; tune on dev only.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from pathlib import Path

from memidx.agents.gate import GATE, Gate, trivial
from memidx.agents.recall import Candidate, Recaller
from memidx.config import load_config
from memidx.frozen import replace
from memidx.haystack.filing import Haystack
from memidx.haystack.turn_input import turn_record
from tests.benchmark import agent_exchanges, corpus, til_eval
from tests.benchmark.recall_held import (
    SUFFIXED,
    Labeled,
    chatter,
    judge,
    oracle,
    summary,
    turn_keys,
    with_suffix,
)
from tests.benchmark.workspace import memidx, repo, tree_stamp

SESSION = 6  # answering exchanges per session, and one of chatter


def workspace(work: Path, data: Path) -> Path:
    stamp = tree_stamp(data / "til-jbranchaud") + "agent-turns-v2"
    root, built = repo(work, "agent-turns", stamp, lambda r: (r / "notes").mkdir())
    if built:
        memidx(root, "ingest", quiet=True)
        haystack = Haystack(replace(load_config(root), fsync=False))

        def file(made: agent_exchanges.Made, session: str) -> str:
            text = turn_record({"user": made.user, "assistant": made.assistant}).text
            return haystack.file(
                "turn", text, drawer="til", agent="claude-code", session=session,
                tags=["claude-code"],
            ).id  # fmt: skip

        ids: dict[str, str] = {}
        seen: dict[str, int] = {}
        for src in corpus.til_notes(data):
            topic, key = src.parent.name, f"{src.parent.name}/{src.name}"
            n = seen[topic] = seen.get(topic, -1) + 1
            note = src.read_text(encoding="utf-8")
            ids[key] = file(agent_exchanges.answer(key, note), f"{topic}-{n // SESSION}")
            if n % SESSION == SESSION - 1:
                file(agent_exchanges.chatter(), f"{topic}-{n // SESSION}")
            aside = agent_exchanges.mention(key, note)
            if aside is not None:
                file(aside, f"{topic}-aside-{n // SESSION}")
        haystack.close()
        (root / ".memidx" / "held-ids.json").write_text(json.dumps(ids))
    memidx(root, "ingest", quiet=True)
    memidx(root, "embed", quiet=True)
    return root


def prompts(split: str, key: dict[str, str]) -> list[Labeled]:
    found = [
        Labeled("til", q.text, "til+", frozenset(key[a] for a in q.answers if a in key))
        for q in til_eval.queries(split)
    ]
    found += [Labeled("til", q.text, "til-", frozenset()) for q in til_eval.queries(split, False)]
    return found + chatter("til", split)


# Exchanges gated as lines of conversation, as before the gate told them apart (measured as
# notes are, without the prompt's unknown words, so for prompts with such words this is not
# quite the gate before).
AS_CHAT = replace(GATE, exchange=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=Path(".memidx/bench/held"))
    parser.add_argument("--splits", default="dev,test", help="dev, test or both")
    parser.add_argument("--suffix", default="", help="words added to every TIL query (recall_held)")
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    root = workspace(args.work, args.data)
    if args.build_only:
        return
    recallers = {"til": Recaller(load_config(root))}  # "til": a TIL-made memory
    key = turn_keys(root)
    measured: dict[str, list[tuple[Labeled, list[Candidate]]]] = {}
    for split in args.splits.split(","):
        labeled = prompts(split, key)
        if args.suffix:
            labeled = [with_suffix(p, args.suffix) for p in labeled if p.group in SUFFIXED]
        measured[split] = [
            (p, [] if trivial(p.text) else recallers["til"].candidates(p.text)) for p in labeled
        ]
    for split, part in measured.items():
        print(f"{split}: TIL {split} queries against {len(key)} answering exchanges")
        summary("committed", judge(part, recallers, GATE, neighbours=True))
        summary("exchanges gated as chat turns", judge(part, recallers, AS_CHAT, True))
        oracle(part, recallers)
    if "dev" not in measured:
        return
    for ceiling in CEILINGS:
        best = tuned(measured["dev"], recallers, ceiling)
        print(f"  exchanges' thresholds tuned on dev (most right, <= {ceiling} injected): "
              f"{best.exchange}")  # fmt: skip
        for split, part in measured.items():
            summary(f"{split}, tuned on dev", judge(part, recallers, best, neighbours=True))


CEILINGS = (0.20, 0.10)


def tuned(
    dev: Sequence[tuple[Labeled, list[Candidate]]], recallers: dict[str, Recaller], ceiling: float
) -> Gate:
    """The exchanges' thresholds with the most right exchanges on dev while at most `ceiling`
    of negatives get something (ties: the stricter cell); the path with every word kept."""
    best: tuple[tuple[float, ...], Gate] | None = None
    base = GATE.exchange or GATE.note
    cells = itertools.product(range(40, 86, 2), range(20, 72, 4), range(3, 11))
    for c, w, s in cells:
        if w > c:
            continue
        cell = replace(base, cosine=c / 100, cosine_with_words=w / 100, word_share=s / 10)
        gate = replace(GATE, exchange=cell)
        outcomes = judge(dev, recallers, gate, neighbours=False)
        pos = [o for o in outcomes if o.prompt.positive]
        neg = [o for o in outcomes if not o.prompt.positive]
        right = sum(bool(set(o.injected) & o.prompt.right) for o in pos) / max(1, len(pos))
        wrong = sum(bool(o.injected) for o in neg) / max(1, len(neg))
        key = (right, -wrong, c, w, s)
        if wrong <= ceiling and (best is None or key > best[0]):
            best = (key, gate)
    return best[1] if best else GATE


if __name__ == "__main__":
    main()
