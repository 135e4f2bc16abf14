"""`rerank_fit collect --candidate`: the pools a re-ranker is refitted on are the candidate's
lists (RM3's grown query), not plain BM25's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark import embedder_candidates, rerank_fit
from tests.benchmark.judged import Judged, JudgedSet
from tests.helpers import FakeEmbedder, NotesRepo

QUERY = "flock"


def _memory(repo: NotesRepo) -> JudgedSet:
    """One note has the query's word; one shares only its other words (RM3's feedback brings
    them in); ten others fill the index, so those words are rare enough to be fed back."""
    repo.note("lock.md", "Locks", "flock serialises writers across processes")
    repo.note("writers.md", "Writers", "serialises writers across processes with a mutex")
    for i in range(10):
        repo.note(f"other{i}.md", f"Other {i}", f"kubernetes pods restart number {i} policy")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    relevant = frozenset({"notes/writers.md"})
    return JudgedSet("mini", repo.root, (Judged(QUERY, relevant, "dev"),), lambda h: h.ref)


def _word_ranks(path: Path) -> dict[str, int | None]:
    (row,) = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {doc[0]: doc[2] for doc in row["docs"]}


def test_collect_keeps_the_candidates_lists_when_one_is_named(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(embedder_candidates.EMBEDDERS, "fake", lambda: FakeEmbedder("test/c"))
    judged = _memory(repo)
    plain, grown = tmp_path / "plain.jsonl", tmp_path / "grown.jsonl"

    rerank_fit.collect(judged, plain, slug="fake")
    rerank_fit.collect(judged, grown, slug="fake", lists=rerank_fit.CANDIDATES["rm3 10/10/0.8"])

    assert _word_ranks(plain)["notes/lock.md"] == 1
    assert _word_ranks(plain)["notes/writers.md"] is None  # not one of the query's words
    assert _word_ranks(grown)["notes/lock.md"] == 1
    assert _word_ranks(grown)["notes/writers.md"] == 2  # the grown query's words found it


def test_an_unknown_candidate_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        rerank_fit.main(["collect", "--candidate", "rm3 nope"])
    assert stopped.value.code == 2
    assert "--candidate: no ranking candidate 'rm3 nope'" in capsys.readouterr().err
