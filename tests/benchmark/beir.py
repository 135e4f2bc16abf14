"""BEIR NFCorpus through memidx: every document a note, the test queries, graded judgments."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from memidx.index.store import Filters
from memidx.search.searcher import Searcher
from tests.benchmark.metrics import mrr_at_k, ndcg_at_k, recall_at_k

# Published test-split nDCG@10 for reference (see ../shared/data/beir-nfcorpus/SOURCE.md).
REFERENCES = {
    "BM25 (BEIR paper, Anserini multifield)": 0.325,
    "BM25 flat (Anserini)": 0.322,
    "bge-small-en-v1.5 dense (MTEB)": 0.343,
    "bge-base-en-v1.5 dense (Anserini)": 0.374,
}


@dataclass(frozen=True, slots=True)
class BeirScores:
    ndcg: float
    recall: float
    mrr: float
    queries: int


def write_notes(data: Path, notes: Path) -> int:
    """One note per document: `# title`, then the text. Returns the count."""
    notes.mkdir(parents=True, exist_ok=True)
    count = 0
    with (data / "beir-nfcorpus" / "corpus.jsonl").open(encoding="utf-8") as corpus:
        for line in corpus:
            doc = json.loads(line)
            title = " ".join(doc.get("title", "").split())
            text = doc.get("text", "").strip()
            body = f"# {title}\n\n{text}\n" if title else f"{text}\n"
            (notes / f"{doc['_id']}.md").write_text(body, encoding="utf-8")
            count += 1
    return count


def test_queries(data: Path) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """The test-split queries that have judgments, and their graded judgments."""
    return split_queries(data, "test")


def split_queries(data: Path, split: str) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """The queries of one split (`dev`, `test`) that have judgments, and those judgments."""
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with (data / "beir-nfcorpus" / "qrels" / f"{split}.tsv").open(encoding="utf-8") as judged:
        next(judged)
        for line in judged:
            query, doc, grade = line.rstrip("\n").split("\t")
            qrels[query][doc] = int(grade)
    texts: dict[str, str] = {}
    with (data / "beir-nfcorpus" / "queries.jsonl").open(encoding="utf-8") as queries:
        for line in queries:
            item = json.loads(line)
            if item["_id"] in qrels:
                texts[item["_id"]] = item["text"]
    return texts, dict(qrels)


def evaluate(searcher: Searcher, data: Path, mode: str) -> BeirScores:
    texts, qrels = test_queries(data)
    ndcg: list[float] = []
    recall: list[float] = []
    mrr: list[float] = []
    for qid, text in texts.items():
        hits = searcher.search(text, Filters(), 10, mode).hits
        ranked = [Path(h.ref).stem for h in hits]
        gains = qrels[qid]
        relevant = {d for d, g in gains.items() if g > 0}
        ndcg.append(ndcg_at_k(ranked, gains))
        recall.append(recall_at_k(ranked, relevant))
        mrr.append(mrr_at_k(ranked, relevant))
    return BeirScores(mean(ndcg), mean(recall), mean(mrr), len(texts))
