"""NFCorpus as far as it is embedded (`BENCH_SETS=nfcorpus-part`): the documents of the
`nfcorpus` workspace whose every chunk already has a vector, in a workspace of their own with
those vectors copied, and the judgments of those documents only (queries left without one are
left out). Embedding all 13,021 chunks takes hours on 2 shared cores; this compares the modes
and candidates on the same documents meanwhile. Its figures are not NFCorpus' (fewer
documents, fewer distractors) and cannot be set against the published ones."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from memidx.config import load_config
from tests.benchmark.judged import Judged, JudgedSet, beir_set
from tests.benchmark.workspace import memidx, repo

EMBEDDED = """SELECT d.source_ref FROM documents d JOIN chunks c ON c.doc_id = d.id
  GROUP BY d.id
  HAVING min(EXISTS (SELECT 1 FROM vectors v WHERE v.text_hash = c.text_hash AND v.model = ?))
  ORDER BY d.id"""


def embedded(index: Path, model: str) -> list[str]:
    """The notes (`notes/MED-1.md`) whose every chunk has a vector of `model`."""
    with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as conn:
        return [str(ref) for (ref,) in conn.execute(EMBEDDED, (model,))]


def copy_vectors(source: Path, target: Path) -> None:
    """The model rows and every vector the target's chunks need, from the source index."""
    with closing(sqlite3.connect(target)) as conn, conn:
        conn.execute("ATTACH DATABASE ? AS source", (f"file:{source}?mode=ro",))
        conn.execute("INSERT OR REPLACE INTO models SELECT * FROM source.models")
        conn.execute(
            """INSERT OR IGNORE INTO vectors (text_hash, model, vector)
               SELECT v.text_hash, v.model, v.vector FROM source.vectors v
               WHERE v.text_hash IN (SELECT text_hash FROM chunks)"""
        )


def beir_part_set(work: Path, data: Path) -> JudgedSet:
    full = beir_set(work, data)
    index = full.root / ".memidx" / "index.sqlite"
    model = load_config(full.root, env={"MEMIDX_ROOT": str(full.root)}).model
    refs = embedded(index, model)

    def build(root: Path) -> None:
        for ref in refs:
            (root / ref).parent.mkdir(parents=True, exist_ok=True)
            (root / ref).write_bytes((full.root / ref).read_bytes())

    root, built = repo(work, "beir-part", f"{index}:{model}:{len(refs)}", build)
    if built:
        memidx(root, "ingest", quiet=True)
        copy_vectors(index, root / ".memidx" / "index.sqlite")
    kept = set(refs)
    found: list[Judged] = []
    for query in full.queries:
        grades = tuple((ref, grade) for ref, grade in query.grades if ref in kept)
        if grades:
            relevant = frozenset(ref for ref, _ in grades)
            found.append(Judged(query.text, relevant, query.split, grades=grades))
    print(f"nfcorpus-part: the {len(refs)} of {_count(index)} documents embedded so far")
    return JudgedSet("nfcorpus-part", root, tuple(found), full.key)


def _count(index: Path) -> int:
    with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as conn:
        return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
