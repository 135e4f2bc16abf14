"""Which stopwords earn their place (`make bench ONLY=stopwords`; BM25 only, no model needed).

The stopword list of memidx/search/query.py was first chosen on the golden set, which the tests
then gate. Here each word of that list is judged on data not used to choose it: BEIR NFCorpus
test queries, LoCoMo questions (categories 1-4, searched within their conversation) and the
developers' own queries over the TIL notes (tests/benchmark/til/queries.toml).

Each set is cut in two halves. On the selection half, for every word, the queries whose terms
change when the word is kept are searched both ways (drop - keep on MRR@10, nDCG@10, recall@10,
averaged over those queries). A word is supported when dropping it lowers neither nDCG@10 nor
MRR@10 on any set where it changes at least MIN_AFFECTED queries, and raises nDCG@10 on one of
them; a word with no such set has no support. The whole lists are then compared on the other
half, which chose nothing, and on the golden set (in-sample, for information).
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

from memidx.index.store import Filters, LexicalRow, open_store
from memidx.search import query
from memidx.search.lexical import lexical_search, rank_lexical
from tests.benchmark import beir, locomo, turns
from tests.benchmark.golden import copy_notes, queries, score
from tests.benchmark.metrics import mrr_at_k, ndcg_at_k, recall_at_k
from tests.benchmark.workspace import beir_repo, locomo_repo, memidx, repo, til_repo, tree_stamp

# The list as it was chosen on the golden set (7a82340; `uses` added in 8aca84e).
_CHOSEN_TEXT = """
a about after again all also am an and any are as at be because been before being
between both but by can could did do does doing don down during each even ever few for from
get gets getting got had has have having he her here hers him his how i if in into is it its
just keep keeps let lets like make makes may me might more most much must my no nor not now
of off on once only or other our out over own same says say saying see seems she should so
some still such than that the their them then there these they this those through to too
try trying under until up use used uses using very via want was we were what when where which
while who whom why will with without won would you your yours
"""
CHOSEN = frozenset(_CHOSEN_TEXT.split())
TIL_QUERIES = Path(__file__).parent / "til" / "queries.toml"
# A set judges a word only when the word changes at least this many of its selection queries:
# one or two queries are an anecdote, neither support nor a veto.
MIN_AFFECTED = 5
SELECT, CONFIRM = 0, 1
Figures = tuple[float, float, float]  # MRR@10, nDCG@10, recall@10


@dataclass(frozen=True, slots=True)
class Case:
    """One query, its graded judgments (keys as the set's search returns them), its half."""

    text: str
    gains: Mapping[str, int]
    filters: Filters
    half: int


@dataclass(slots=True)
class QuerySet:
    """A held-out set: its cases and how to search it (keys, best first)."""

    name: str
    cases: list[Case]
    search: Callable[[str, Filters], list[str]]
    cache: dict[tuple[int, tuple[str, ...]], Figures] = field(
        default_factory=dict[tuple[int, tuple[str, ...]], Figures]
    )

    def figures(self, index: int, terms: tuple[str, ...]) -> Figures:
        """The case's figures when exactly `terms` are searched."""
        key = (index, terms)
        if key not in self.cache:
            case = self.cases[index]
            with stoplist(frozenset()):
                ranked = self.search(" ".join(terms), case.filters)
            relevant = {k for k, g in case.gains.items() if g > 0}
            self.cache[key] = (
                mrr_at_k(ranked, relevant),
                ndcg_at_k(ranked, case.gains),
                recall_at_k(ranked, relevant),
            )
        return self.cache[key]

    def terms(self, words: frozenset[str], index: int) -> tuple[str, ...]:
        with stoplist(words):
            return query.query_terms(self.cases[index].text).terms

    def half(self, half: int) -> list[int]:
        return [i for i, case in enumerate(self.cases) if case.half == half]

    def means(self, words: frozenset[str], half: int) -> Figures:
        return _mean([self.figures(i, self.terms(words, i)) for i in self.half(half)])


@contextmanager
def stoplist(words: frozenset[str]) -> Generator[None]:
    """Search with `words` as the stopword list."""
    saved = query.STOPWORDS
    query.STOPWORDS = words
    try:
        yield
    finally:
        query.STOPWORDS = saved


def _mean(rows: Sequence[Figures]) -> Figures:
    if not rows:
        return (0.0, 0.0, 0.0)
    return (mean(r[0] for r in rows), mean(r[1] for r in rows), mean(r[2] for r in rows))


def _ranker(root: Path) -> Callable[[str, Filters], list[LexicalRow]]:
    """`--mode bm25`'s ranking in the workspace at root (its hits, without snippets)."""
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
    return lambda text, filters: rank_lexical(store, text, filters, 10).rows


def beir_set(args: argparse.Namespace) -> QuerySet:
    """The 323 test queries; halves alternate in the file's order."""
    rank = _ranker(beir_repo(args.work, args.data))
    texts, qrels = beir.test_queries(args.data)
    cases = [Case(t, qrels[q], Filters(), n % 2) for n, (q, t) in enumerate(texts.items())]
    return QuerySet(
        "BEIR NFCorpus test",
        cases,
        lambda text, filters: [Path(row.source_ref).stem for row in rank(text, filters)],
    )


def locomo_set(args: argparse.Namespace) -> QuerySet:
    """The questions with evidence; halves by conversation, whose questions are alike."""
    dataset = locomo.load(args.data)
    root = locomo_repo(args.work, args.data, dataset)
    rank, ids = _ranker(root), turns.dia_ids(root)
    order = list(dict.fromkeys(q.conversation for q in dataset.questions))
    cases = [
        Case(
            q.text,
            dict.fromkeys(q.evidence, 1),
            Filters(drawer=q.conversation),
            order.index(q.conversation) % 2,
        )
        for q in dataset.questions
    ]
    return QuerySet(
        "LoCoMo questions 1-4",
        cases,
        lambda text, filters: [ids[str(row.meta["id"])] for row in rank(text, filters)],
    )


def til_set(args: argparse.Namespace) -> QuerySet:
    """Our 40 queries over the TIL notes; halves alternate in the file's (random) order."""
    rank = _ranker(til_repo(args.work, args.data))
    data = tomllib.loads(TIL_QUERIES.read_text(encoding="utf-8"))
    cases = [
        Case(q["q"], {f"notes/{q['expected']}": 1}, Filters(), n % 2)
        for n, q in enumerate(data["query"])
    ]
    return QuerySet(
        "TIL developer queries (ours)",
        cases,
        lambda text, filters: [row.source_ref for row in rank(text, filters)],
    )


@dataclass(frozen=True, slots=True)
class Effect:
    """Dropping one word vs keeping it, on the selection queries whose terms it changes."""

    affected: int
    delta: Figures  # drop - keep, mean over the affected queries


def effect(qs: QuerySet, word: str, base: frozenset[str] = CHOSEN) -> Effect:
    """Dropping `word` (the list `base` with the word) against keeping it (`base` without)."""
    drop, keep = base | {word}, base - {word}
    dropped: list[Figures] = []
    kept: list[Figures] = []
    for i in qs.half(SELECT):
        with_drop, with_keep = qs.terms(drop, i), qs.terms(keep, i)
        if with_drop != with_keep:
            dropped.append(qs.figures(i, with_drop))
            kept.append(qs.figures(i, with_keep))
    d, k = _mean(dropped), _mean(kept)
    return Effect(len(dropped), (d[0] - k[0], d[1] - k[1], d[2] - k[2]))


def supported(effects: Sequence[Effect], least: int = MIN_AFFECTED) -> bool:
    """Dropping the word lowers neither MRR@10 nor nDCG@10 on any set where it changes at least
    `least` queries, and raises nDCG@10 on one of them."""
    seen = [e for e in effects if e.affected >= max(1, least)]
    return (
        bool(seen)
        and all(e.delta[0] >= 0 and e.delta[1] >= 0 for e in seen)
        and any(e.delta[1] > 0 for e in seen)
    )


def run(args: argparse.Namespace) -> None:
    builders = ((beir_set, "beir-nfcorpus"), (locomo_set, "locomo"), (til_set, "til-jbranchaud"))
    sets = [build(args) for build, folder in builders if (args.data / folder).exists()]
    for s in sets:
        print(f"{s.name}: {len(s.half(SELECT))} selection, {len(s.half(CONFIRM))} confirmation")
    print("selection half, drop - keep over the queries the word changes: n dMRR dnDCG dR@10")
    print(f"{'word':<9}" + "".join(f"{s.name[:32]:>33}" for s in sets) + f"  n>={MIN_AFFECTED}")
    kept: set[str] = set()
    unused: list[str] = []
    for word in sorted(CHOSEN):
        effects = [effect(s, word) for s in sets]
        if not any(e.affected for e in effects):
            unused.append(word)
            continue
        verdict = supported(effects)
        if verdict:
            kept.add(word)
        cells = "".join(
            f"{e.affected:>6} {e.delta[0]:>+8.4f} {e.delta[1]:>+8.4f} {e.delta[2]:>+8.4f}"
            if e.affected
            else f"{'-':>6} {'':>26}"
            for e in effects
        )
        print(f"{word:<9}{cells}  {'keep' if verdict else '-':>5}")
    final = frozenset(kept)
    print(f"in no selection query (no support): {' '.join(unused)}")
    print(f"supported: {' '.join(sorted(final))}")
    flips = [
        w for w in sorted(CHOSEN) if supported([effect(s, w, final) for s in sets]) != (w in final)
    ]
    print(f"judged again against the supported list, verdicts that flip: {' '.join(flips) or '-'}")
    _compare(
        args,
        sets,
        {
            "chosen on golden": CHOSEN,
            "supported": final,
            "memidx now": query.STOPWORDS,
            "no stopwords": frozenset[str](),
        },
    )


def _compare(
    args: argparse.Namespace, sets: Sequence[QuerySet], lists: Mapping[str, frozenset[str]]
) -> None:
    """Whole lists side by side on each half, then on the golden set."""
    for half, label in ((CONFIRM, "confirmation half (chose nothing)"), (SELECT, "selection half")):
        print(f"\n{label}, whole lists, mean over every query: MRR@10 nDCG@10 R@10")
        for name, words in lists.items():
            cells = "".join(
                f"  {m[0]:.4f} {m[1]:.4f} {m[2]:.4f}" for m in (s.means(words, half) for s in sets)
            )
            print(f"{name:<17}{cells}   ({len(words)} words)")
    print("\ngolden set (in-sample, information only): BM25 recall@5 MRR@10")
    golden = _golden(args)
    for name, words in lists.items():
        with stoplist(words):
            found = score(queries(), golden)
        print(f"{name:<17}  {found.recall_at_5:.3f} {found.mrr:.3f}")


def _golden(args: argparse.Namespace) -> Callable[[str], list[str]]:
    root, _ = repo(args.work, "golden", tree_stamp(Path(__file__).parent / "golden"), copy_notes)
    memidx(root, "ingest", quiet=True)
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
    return lambda text: [h.ref for h in lexical_search(store, text, Filters(), 10).hits]
