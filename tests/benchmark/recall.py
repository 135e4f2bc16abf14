"""`make bench ONLY=recall`: the agents' recall gate on labeled prompts, and the prompt hook's
latency as an agent sees it (a new process per event).

The memory: the 1,871 TIL notes plus the turns of one LoCoMo conversation (conv-30), filed as
agents file turns. Positives: that conversation's questions (categories 1-4; right = an
evidence turn injected) and prompts made from TIL note titles (ours, derived: right = that
note injected). Negatives: questions of another conversation (conv-26), off-topic prompts and
trivial prompts (ours). Prompts split in two by a hash of their text: thresholds are tuned on
the dev half only; the test half is reported and never tuned on."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memidx.agents.block import MAX_HITS, recall_block
from memidx.agents.gate import GATE, Gate, Thresholds, pick, trivial
from memidx.agents.recall import CANDIDATES, Candidate, Recaller
from memidx.config import load_config
from memidx.frozen import replace
from memidx.haystack.filing import Haystack
from memidx.index.store import open_store
from tests.benchmark import corpus, hook_latency, locomo, mcp_speed
from tests.benchmark.timing import percentile
from tests.benchmark.turns import session_time, turn_text
from tests.benchmark.workspace import file_stamp, memidx, repo, tree_stamp

MEMORY_CONVERSATION, OTHER_CONVERSATION = "conv-30", "conv-26"
TIL_EVERY = 12  # one TIL note in 12 gives a title prompt
OFF_TOPIC = [
    "Write a limerick about a cat who learns to play the violin",
    "What is the capital of Australia and why is it not Sydney?",
    "Suggest a vegetarian lasagna recipe for six people",
    "Translate 'good morning, how are you' into Portuguese",
    "Who won the football world cup in 1986?",
    "Explain the plot of Hamlet in three sentences",
    "What are good stretches for lower back pain after running?",
    "Recommend a science fiction novel about first contact",
    "How many moons does Jupiter have at the latest count?",
    "Draft a polite email declining a wedding invitation",
    "What is the difference between a crocodile and an alligator?",
    "Plan a three day trip to Lisbon with museums and food",
    "Why is the sky blue at noon and red at sunset?",
    "Compose a haiku about autumn leaves in the rain",
    "What should I feed a six month old golden retriever puppy?",
    "Summarise the causes of the French revolution",
    "Give me a beginner workout plan for the gym three days a week",
    "What is a good name for a bakery that sells sourdough?",
    "How do tides work and why are there two a day?",
    "Which houseplants survive in a dark bathroom?",
]
TRIVIAL = [
    "thanks!", "yes", "ok", "continue", "go on", "looks good", "/compact", "/clear", "lgtm",
    "yes please do that", "ok, continue", "thank you so much", "sounds good, proceed", "nope",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Prompt:
    text: str
    group: str  # locomo+, til+, locomo-, off-topic-, trivial-
    right: frozenset[str]  # keys of the hits that answer it (positives)

    @property
    def positive(self) -> bool:
        return self.group.endswith("+")

    @property
    def dev(self) -> bool:
        return hashlib.sha256(self.text.encode()).digest()[0] % 2 == 0


def workspace(work: Path, data: Path, dataset: locomo.Dataset) -> Path:
    stamp = tree_stamp(data / "til-jbranchaud") + file_stamp(data / "locomo" / "locomo10.json")
    root, built = repo(work, "recall", stamp + "recall-v1", lambda r: corpus.write_til(r, data, 1))
    if built:
        memidx(root, "ingest", quiet=True)
        _file_conversation(root, dataset)
    if os.environ.get("RECALL_EMBED_ALL") == "1":  # hours here; else the notes embedded so far
        memidx(root, "embed", quiet=True)
    return root


def locomo_workspace(work: Path, data: Path, dataset: locomo.Dataset) -> Path:
    """A memory of one conversation's turns alone (cheap to embed on a loaded machine)."""
    stamp = file_stamp(data / "locomo" / "locomo10.json") + "recall-locomo-v1"
    root, built = repo(work, "recall-locomo", stamp, lambda r: (r / "notes").mkdir())
    if built:
        memidx(root, "ingest", quiet=True)
        _file_conversation(root, dataset)
    memidx(root, "embed", quiet=True)
    return root


def _file_conversation(root: Path, dataset: locomo.Dataset) -> None:
    config = replace(load_config(root), fsync=False)
    haystack = Haystack(config)
    ids: dict[str, str] = {}
    for turn in dataset.turns:
        if turn.conversation == MEMORY_CONVERSATION:
            filed = haystack.file(
                "turn", turn_text(turn), drawer=turn.conversation, agent=turn.speaker,
                session=f"{turn.conversation}:session_{turn.session}", ts=session_time(turn.date),
            )  # fmt: skip
            ids[filed.id] = turn.dia_id
    haystack.close()
    (root / ".memidx" / "recall-ids.json").write_text(json.dumps(ids))


def embedded_notes(root: Path) -> set[str]:
    """Refs of the notes whose every chunk has a vector (a partly embedded memory)."""
    config = load_config(root)
    store, _ = open_store(config.index_path, write=False)
    try:
        rows = store.conn.execute(
            """SELECT d.source_ref FROM documents d JOIN chunks c ON c.doc_id = d.id
               LEFT JOIN vectors v ON v.text_hash = c.text_hash AND v.model = ?
               WHERE d.source_kind = 'note' GROUP BY d.id HAVING COUNT(v.text_hash) = COUNT(*)""",
            (config.model,),
        ).fetchall()
    finally:
        store.conn.close()
    return {str(r[0]) for r in rows}


def prompts(root: Path, dataset: locomo.Dataset) -> list[Prompt]:
    ids: dict[str, str] = json.loads((root / ".memidx" / "recall-ids.json").read_text())
    store, _ = open_store(load_config(root).index_path, write=False)
    try:
        rows = store.conn.execute(
            "SELECT source_kind, source_ref, title, meta FROM documents"
        ).fetchall()
    finally:
        store.conn.close()
    dia_key = {
        ids[json.loads(m)["id"]]: f"{k}:{r}" for k, r, _, m in rows if k == "turn"
    }  # fmt: skip
    found: list[Prompt] = []
    for q in dataset.questions:
        if q.category not in locomo.CATEGORIES or not q.evidence:
            continue
        if q.conversation == MEMORY_CONVERSATION:
            right = frozenset(dia_key[e] for e in q.evidence if e in dia_key)
            found.append(Prompt(q.text, "locomo+", right))
        elif q.conversation == OTHER_CONVERSATION:
            found.append(Prompt(q.text, "locomo-", frozenset()))
    embedded = embedded_notes(root)
    notes = sorted((r, t) for k, r, t, _ in rows if k == "note" and r in embedded)
    for ref, title in notes[::TIL_EVERY]:
        found.append(Prompt(f"{title}?", "til+", frozenset({f"note:{ref}"})))
    found += [Prompt(p, "off-topic-", frozenset()) for p in OFF_TOPIC]
    found += [Prompt(p, "trivial-", frozenset()) for p in TRIVIAL]
    return found


def chosen(cands: Sequence[Candidate], gate: Gate) -> list[Candidate]:
    return [cands[i] for i in pick([c.signal for c in cands], MAX_HITS, gate)]


def rates(
    measured: list[tuple[Prompt, list[Candidate]]], gate: Gate
) -> tuple[float, float, list[int]]:
    """(right note injected on positives, injection on negatives, chars injected per prompt)."""
    right = injected = positives = negatives = 0
    chars: list[int] = []
    for prompt, cands in measured:
        picked = chosen(cands, gate)
        block = recall_block([c.recalled for c in picked])
        chars.append(len(block))
        if prompt.positive:
            positives += 1
            right += any(c.key in prompt.right for c in picked)
        else:
            negatives += 1
            injected += bool(block)
    return right / max(1, positives), injected / max(1, negatives), chars


def grid(base: Thresholds) -> list[Thresholds]:
    """`base` with its cosines and word share varied; every other field (the `known` floor)
    stays `base`'s, so a tuned cell gates as the committed gate does."""
    cells = itertools.product(
        [x / 100 for x in range(40, 86, 2)],
        [x / 100 for x in range(20, 62, 2)],
        [x / 10 for x in range(3, 11)],
    )
    return [
        replace(base, cosine=c, cosine_with_words=w, word_share=s) for c, w, s in cells if w <= c
    ]


def tune(measured: list[tuple[Prompt, list[Candidate]]], ceiling: float = 0.08) -> Gate:
    """The gate with the best positive rate on `measured` while negatives stay under
    `ceiling`: the turns' thresholds with the notes' committed, then the notes' with those
    (ties: fewer false injections, then the stricter thresholds)."""
    gate = GATE
    for kind in ("turn", "note"):
        best: tuple[tuple[float, ...], Gate] | None = None
        for cell in grid(gate.of(kind)):
            candidate = replace(gate, **{kind: cell})
            pos, neg, _ = rates(measured, candidate)
            key = (pos, -neg, cell.cosine, cell.cosine_with_words, cell.word_share)
            if neg <= ceiling and (best is None or key > best[0]):
                best = (key, candidate)
        gate = best[1] if best else gate
    return gate


def ceiling(measured: list[tuple[Prompt, list[Candidate]]]) -> float:
    """The share of positives whose right hit is among the candidates at all."""
    positives = [(p, c) for p, c in measured if p.positive]
    found = sum(any(x.key in p.right for x in c) for p, c in positives)
    return found / max(1, len(positives))


def report(label: str, measured: list[tuple[Prompt, list[Candidate]]], gate: Gate) -> None:
    pos, neg, chars = rates(measured, gate)
    print(
        f"  {label:<28} right note injected {pos:.3f} (target >= 0.85), injected on negatives "
        f"{neg:.3f} (target <= 0.10), chars p50 {percentile(chars, 50):.0f} p95 "
        f"{percentile(chars, 95):.0f}"
    )
    for group in ("locomo+", "til+", "locomo-", "off-topic-", "trivial-"):
        part = [(p, c) for p, c in measured if p.group == group]
        if part:
            g_pos, g_neg, _ = rates(part, gate)
            what, shown = ("right", g_pos) if group.endswith("+") else ("injected", g_neg)
            print(f"    {group:<12} n={len(part):<4} {what} {shown:.3f}")


TRADE_OFFS = [(c, 0.38, 0.5) for c in (0.44, 0.46, 0.48, 0.50, 0.52, 0.55, 0.62)]


def trade_offs(
    dev: list[tuple[Prompt, list[Candidate]]], test: list[tuple[Prompt, list[Candidate]]]
) -> None:
    """Turn thresholds -> positives / negatives on both halves, the notes' committed."""
    print("  turn thresholds (cosine / with words / share) -> right, injected: dev | test")
    for cell in TRADE_OFFS:
        cosine, with_words, share = cell  # the committed `known` floor kept
        turn = replace(GATE.turn, cosine=cosine, cosine_with_words=with_words, word_share=share)
        gate = replace(GATE, turn=turn)
        (d_pos, d_neg, _), (t_pos, t_neg, _) = rates(dev, gate), rates(test, gate)
        print(
            f"    {cell[0]:.2f} / {cell[1]:.2f} / {cell[2]:.1f}   {d_pos:.3f} {d_neg:.3f} | "
            f"{t_pos:.3f} {t_neg:.3f}"
        )


def run(data: Path, work: Path, rounds: int) -> None:
    dataset = locomo.load(data)
    started = time.perf_counter()
    til = workspace(work, data, dataset)
    talk = locomo_workspace(work, data, dataset)
    print(f"  workspaces {til}, {talk} ready in {time.perf_counter() - started:.0f} s")
    print(f"  TIL notes with every chunk embedded: {len(embedded_notes(til))}")
    measured = _measure(til, [p for p in prompts(til, dataset) if p.group != "locomo+"])
    measured += _measure(talk, [p for p in prompts(talk, dataset) if p.group != "til+"])
    dev = [m for m in measured if m[0].dev]
    test = [m for m in measured if not m[0].dev]
    tuned = tune(dev)
    print(f"  prompts: {len(dev)} dev, {len(test)} test; committed gate {GATE}")
    print(
        f"  right hit among the {CANDIDATES} candidates at all: dev {ceiling(dev):.3f}, "
        f"test {ceiling(test):.3f}"
    )
    print(f"  tuned on dev: {tuned}")
    report("dev, committed", dev, GATE)
    report("TEST, committed", test, GATE)
    trade_offs(dev, test)
    report("test, tuned on dev", test, tuned)
    scaled = mcp_speed.scaled_workspace(work, data, 10)[0]
    hook_latency.run([til, scaled], max(rounds, 1) * 10)


def _measure(root: Path, labeled: list[Prompt]) -> list[tuple[Prompt, list[Candidate]]]:
    recaller = Recaller(load_config(root))
    return [(p, [] if trivial(p.text) else recaller.candidates(p.text)) for p in labeled]
