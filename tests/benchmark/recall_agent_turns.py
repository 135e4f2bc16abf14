"""`python -m tests.benchmark.recall_agent_turns [--data DIR] [--work DIR]`: the recall gate on
turns shaped like the ones agents file (a prompt, the assistant's answer and its tool notes),
which are longer than LoCoMo's chat turns and were not measured.

The memory: each of the 1,871 TIL notes made into one exchange, filed as a `turn` as the Stop
hook files one: the person's request is the note's title as a question, the assistant's text
the note's prose (links as their text), each code block one tool note (`[tool Bash: <its
first line>]`); a topic folder's notes are sessions of 6 exchanges. These are ours, derived
from the notes, so they are note-like by construction: real exchanges carry more chatter.
Positives: the frozen TIL eval queries (right = the exchange made from an answer note);
negatives: the no-answer queries, off-topic and trivial prompts. Dev and test as the eval
set splits them; tune on dev only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path

from memidx.agents.gate import GATE, Gate, trivial
from memidx.agents.recall import Candidate, Recaller
from memidx.config import load_config
from memidx.frozen import replace
from memidx.haystack.filing import Haystack
from memidx.haystack.turn_input import turn_record
from tests.benchmark import corpus, til_eval
from tests.benchmark.recall_held import Labeled, chatter, judge, summary, turn_keys
from tests.benchmark.workspace import memidx, repo, tree_stamp

FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
SESSION = 6  # exchanges per session


def exchange(note: str) -> tuple[str, str]:
    """(the person's request, the assistant's text with tool notes) made from one TIL note."""
    lines = note.split("\n")
    titled = bool(lines) and lines[0].startswith("#")
    title = lines[0].lstrip("# ").strip() if titled else ""
    body = "\n".join(lines[1:]) if titled else note

    def tool(match: re.Match[str]) -> str:
        code = [c for c in match.group(1).splitlines() if c.strip()]
        return f"\n[tool Bash: {' '.join(code[0].split())[:159]}]\n" if code else "\n"

    said = LINK.sub(r"\1", FENCE.sub(tool, body))
    return f"{title}?", "\n".join(line for line in said.splitlines() if line.strip())


def workspace(work: Path, data: Path) -> Path:
    stamp = tree_stamp(data / "til-jbranchaud") + "agent-turns-v1"
    root, built = repo(work, "agent-turns", stamp, lambda r: (r / "notes").mkdir())
    if built:
        memidx(root, "ingest", quiet=True)
        haystack = Haystack(replace(load_config(root), fsync=False))
        ids: dict[str, str] = {}
        seen: dict[str, int] = {}
        for src in corpus.til_notes(data):
            topic = src.parent.name
            n = seen[topic] = seen.get(topic, -1) + 1
            user, said = exchange(src.read_text(encoding="utf-8"))
            text = turn_record({"user": user, "assistant": said}).text
            filed = haystack.file(
                "turn", text, drawer="til", agent="claude-code",
                session=f"{topic}-{n // SESSION}", tags=["claude-code"],
            )  # fmt: skip
            ids[f"{topic}/{src.name}"] = filed.id
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=Path(".memidx/bench/held"))
    args = parser.parse_args()
    root = workspace(args.work, args.data)
    recallers = {"til": Recaller(load_config(root))}  # "til": a TIL-made memory
    key = turn_keys(root)
    measured = {
        split: [
            (p, [] if trivial(p.text) else recallers["til"].candidates(p.text))
            for p in prompts(split, key)
        ]
        for split in ("dev", "test")
    }
    notes_for_turns = replace(GATE, turn=replace(GATE.note, known=GATE.turn.known))
    for split, part in measured.items():
        print(f"{split}: TIL {split} queries against {len(key)} exchanges filed as turns")
        summary("committed", judge(part, recallers, GATE, neighbours=True))
        summary("notes' thresholds for turns", judge(part, recallers, notes_for_turns, True))
    best = tuned(measured["dev"], recallers)
    print(f"  tuned on dev (best right under 0.20 injected): {best.turn}")
    summary("test, tuned on dev", judge(measured["test"], recallers, best, neighbours=True))


def tuned(dev: Sequence[tuple[Labeled, list[Candidate]]], recallers: dict[str, Recaller]) -> Gate:
    """The turns' thresholds with the most right turns on dev while at most 0.20 of negatives
    get something (ties: the stricter cell); the `known` floor kept."""
    best: tuple[tuple[float, ...], Gate] | None = None
    cells = itertools.product(range(40, 86, 2), range(20, 72, 4), range(3, 11))
    for c, w, s in cells:
        if w > c:
            continue
        turn = replace(GATE.turn, cosine=c / 100, cosine_with_words=w / 100, word_share=s / 10)
        gate = replace(GATE, turn=turn)
        outcomes = judge(dev, recallers, gate, neighbours=False)
        pos = [o for o in outcomes if o.prompt.positive]
        neg = [o for o in outcomes if not o.prompt.positive]
        right = sum(bool(set(o.injected) & o.prompt.right) for o in pos) / max(1, len(pos))
        wrong = sum(bool(o.injected) for o in neg) / max(1, len(neg))
        key = (right, -wrong, c, w, s)
        if wrong <= 0.20 and (best is None or key > best[0]):
            best = (key, gate)
    return best[1] if best else GATE


if __name__ == "__main__":
    main()
