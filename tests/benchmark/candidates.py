"""The ranking bench's candidates (`make bench ONLY=ranking`, BENCH_CANDIDATES=names): each a
way to rank, named, with what it changes from memidx's defaults."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from memidx.search.fusion import Fusion
from memidx.search.okapi import Saturation
from memidx.search.query import STOPWORDS
from memidx.search.reranker import Learned, Order
from memidx.search.rm3 import Expansion
from memidx.search.searcher import DEPTH
from tests.benchmark.cross_encoder import Cross
from tests.benchmark.stopwords import CHOSEN


@dataclass(frozen=True, slots=True)
class Candidate:
    """A way to rank: the mode it searches in and what it changes from memidx's defaults."""

    mode: str = "hybrid"
    fusion: Fusion = field(default_factory=Fusion)
    depth: int = DEPTH
    bonus: float = 0.0  # OR with a bonus for the share of query words (lexical.rank_lexical)
    rerank: int = 0
    fields: tuple[float, ...] | None = None  # BM25 weights: title, tags, aliases, body
    stopwords: frozenset[str] | None = None
    feedback: tuple[int, float] = (0, 0.0)  # query vector feedback: nearest chunks, weight
    reranker: Order | None = field(default_factory=Learned)  # None: the fused order
    turns: bool = True  # re-order turns in their sessions' context (memidx/search/context.py)
    cross: Cross | None = None  # the cross-encoder over the learned top N (cross_encoder.py)
    saturation: Saturation | None = None  # BM25's k1 and b, FTS5's best 3 x depth re-scored
    expansion: Expansion | None = None  # RM3 on the words (memidx/search/expansion.py)


DEFAULT = Candidate()  # memidx's own ranking in hybrid
# python -m tests.benchmark.rerank_fit fit --features 9 --fit-sets golden,til,nfcorpus-train,locomo
NINE_FEATURES = (-0.473, -0.175, 0.044, 5.235, 0.298, 0.313, -1.174, 4.355, 2.657, 0.0)
CANDIDATES: dict[str, Candidate] = {
    "no turn context": Candidate(turns=False),  # hybrid before the turn-context model
    "rerank top 20 by rel. w/o turn context": Candidate(rerank=20, turns=False),
    "convex 0.5": Candidate(fusion=Fusion("convex")),
    "convex 0.3": Candidate(fusion=Fusion("convex", alpha=0.3)),
    "convex 0.2": Candidate(fusion=Fusion("convex", alpha=0.2)),
    "rrf weights 1/2": Candidate(fusion=Fusion(weights=(1.0, 2.0))),
    "rrf weights 2/1": Candidate(fusion=Fusion(weights=(2.0, 1.0))),
    "rrf depth 10": Candidate(depth=10),
    "rrf depth 40": Candidate(depth=40),
    "rrf chunk-level": Candidate(fusion=Fusion(chunks=True)),
    "or+coverage 1": Candidate(bonus=1.0),
    "or+coverage 3": Candidate(bonus=3.0),
    "fields 1/1/1/1": Candidate(fields=(1.0, 1.0, 1.0, 1.0)),
    "fields 3/2/2/1": Candidate(fields=(3.0, 2.0, 2.0, 1.0)),
    "fields 16/12/12/1": Candidate(fields=(16.0, 12.0, 12.0, 1.0)),
    "stopwords none": Candidate(stopwords=frozenset()),
    "stopwords chosen": Candidate(stopwords=CHOSEN),
    "rerank top 20 by rel.": Candidate(rerank=20, reranker=None),
    "fused order": Candidate(reranker=None),  # the default before the learned re-ranker
    # the learned re-ranker with the second-best chunk's cosine and the rarity-weighted
    # coverage, NFCorpus fitted on its train split (README, "Ranking candidates")
    "rerank 9 features": Candidate(reranker=Learned(weights=NINE_FEATURES)),
    "convex 0.3 + or+cov. 1": Candidate(fusion=Fusion("convex", alpha=0.3), bonus=1.0),
    "rrf k 10": Candidate(fusion=Fusion(k=10)),
    "feedback 3/0.5": Candidate(feedback=(3, 0.5)),
    "feedback 10/2": Candidate(feedback=(10, 2.0)),
    "vector feedback 10/2": Candidate("vector", feedback=(10, 2.0)),
    "feedback 10/2 + depth 40": Candidate(feedback=(10, 2.0), depth=40),
    "feedback 10/2 + or+cov. 1": Candidate(feedback=(10, 2.0), bonus=1.0),
    "fb 10/2 + d40 + or+cov. 1": Candidate(feedback=(10, 2.0), depth=40, bonus=1.0),
}
# BM25 with other k1 and b than FTS5's 1.2 and 0.75 (memidx/search/okapi.py)
CANDIDATES.update(
    {
        f"k1 {k1} b {b}": Candidate(saturation=Saturation(k1, b))
        for k1, b in ((1.2, 0.75), (0.6, 0.3), (0.9, 0.4), (1.2, 0.5), (1.6, 0.5), (2.0, 0.75))
    }
)
# notes by one pair, records (conversation turns: short, and not saturated alike) by another
CANDIDATES.update(
    {
        f"k1 {k1} b {b} + records {rk1}/{rb}": Candidate(saturation=Saturation(k1, b, (rk1, rb)))
        for k1, b, rk1, rb in (
            (2.0, 0.75, 0.9, 0.4),
            (2.0, 0.75, 0.6, 0.3),
            (1.6, 0.5, 0.9, 0.4),
            (1.2, 0.75, 0.6, 0.3),  # notes as FTS5 has them
        )
    }
)
# Pseudo-relevance feedback on the words (RM3): `rm3 D/W/K`, the first D documents give W words,
# the query's own keep K of the weight; new words none of the 147 chosen stopwords (nor memidx's)
# and in at most 1 in 5 documents. 10/10/0.8 chosen on NFCorpus dev by words and TIL dev in
# hybrid; bench only, it loses TIL test's MRR@10 in hybrid (README, "Ranking candidates").
_FEEDBACK_STOPWORDS = CHOSEN | STOPWORDS
CANDIDATES.update(
    {
        f"rm3 {d}/{w}/{k}": Candidate(expansion=Expansion(d, w, k, stopwords=_FEEDBACK_STOPWORDS))
        for d, w, k in ((10, 10, 0.8), (10, 10, 0.9), (10, 10, 0.5), (3, 10, 0.8))
    }
)
# RM3 only where the first pass has no clear best: its 10th document scores at least F of the
# first's (rm3.feeds_back; the rest rank as the default does). F chosen on the dev splits.
CANDIDATES.update(
    {
        f"rm3 10/10/0.8 flat {f}": Candidate(
            expansion=Expansion(10, 10, 0.8, stopwords=_FEEDBACK_STOPWORDS, flat=f)
        )
        for f in (0.5, 0.6)
    }
)
# The lexical candidates also by words alone (`--mode bm25`), against bm25.
CANDIDATES.update(
    {
        f"bm25 {name}": replace(c, mode="bm25")
        for name, c in list(CANDIDATES.items())
        if c.bonus
        or c.fields
        or c.stopwords is not None
        or c.saturation is not None
        or c.expansion is not None
    }
)
# `rm3 10/10/0.8` with the learned re-ranker refitted on its own lists (its BM25 ranks and
# scores are the grown query's): `rerank_fit collect --candidate "rm3 10/10/0.8" --out P` on
# every set, then `fit --out P` (golden, TIL, NFCorpus, LoCoMo dev; 1,236 queries, 55,965 pairs).
RM3_REFIT = (-0.434, -0.110, -0.149, 8.257, 0.414, 2.069, -0.381, 0.0, 0.0, 0.0)
CANDIDATES["rm3 10/10/0.8 refit"] = replace(
    CANDIDATES["rm3 10/10/0.8"], reranker=Learned(weights=RM3_REFIT)
)
# The cross-encoder over the learned re-ranker's top N (cross_encoder.py): `ce dN tT` its
# logit alone, `... bW` W x its logit + (1 - W) x the learned score, both min-max normalised.
CANDIDATES.update(
    {
        f"ce d{depth} t{tokens}" + (f" b{blend}" if blend is not None else ""): Candidate(
            cross=Cross(depth, tokens, blend)
        )
        for depth in (10, 20, 30)
        for tokens in (256, 384)
        for blend in (None, 0.3, 0.5, 0.7)
    }
)
# The learned re-ranker's seven features fitted for the top of the list (rank_loss.py; dev
# splits of golden, TIL, NFCorpus and LoCoMo, 1,236 queries; chosen by five-fold
# cross-validation on dev: README, "Ranking candidates"):
# python -m tests.benchmark.rank_loss fit --loss lambda-ndcg --l2 1e-3 --rounds 1 --top 30
LAMBDA_NDCG = (-0.398, -0.094, -0.107, 9.497, 0.416, 2.817, -1.022, 0.0, 0.0, 0.0)
# python -m tests.benchmark.rank_loss fit --loss listnet --l2 1e-4 --top 30
LISTNET = (-0.357, 0.060, -0.025, 10.994, 0.473, 3.045, -1.305, 0.0, 0.0, 0.0)
CANDIDATES["rerank lambda-ndcg"] = Candidate(reranker=Learned(weights=LAMBDA_NDCG))
CANDIDATES["rerank listnet"] = Candidate(reranker=Learned(weights=LISTNET))
# the 7 and the share of the query's IDF mass a document has over its pool's best share
# (reranker.best_weighted): python -m tests.benchmark.rerank_fit fit --features 7,9
IDF_SHARE = (-0.314, -0.129, -0.053, 9.519, -0.051, 0.710, -0.554, 0.0, 0.0, 2.206)
CANDIDATES["rerank idf share"] = Candidate(reranker=Learned(weights=IDF_SHARE))
# Turns are re-ordered after any re-ranker by the turn-context model, which undoes the
# cross-encoder's order among them: on LoCoMo it is tried without that model too.
CANDIDATES.update(
    {
        f"ce d{depth} t256" + (f" b{blend}" if blend is not None else "") + " w/o turn ctx": (
            Candidate(cross=Cross(depth, 256, blend), turns=False)
        )
        for depth in (10, 20, 30)
        for blend in (None, 0.3, 0.5, 0.7)
    }
)
# Chosen on the dev splits: each kind by what won its sets there (README, "Ranking
# candidates"): notes (TIL, NFCorpus) 0.3 x the logit, turns (LoCoMo) the logit alone.
CANDIDATES["ce-rerank"] = Candidate(cross=Cross(10, 256, 0.3, turn_blend=None), turns=False)
