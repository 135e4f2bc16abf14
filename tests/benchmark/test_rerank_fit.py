"""`rerank_fit collect --candidate`: the pools a re-ranker is refitted on are the candidate's
lists (RM3's grown query), not plain BM25's. `fit` and `check` with no pools there: a usage
error naming --out and the collect step."""

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


def _collected(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """What main hands collect, one tuple of arguments a call (set "mini"; nothing runs)."""
    calls: list[tuple[object, ...]] = []

    def collect(*args: object) -> int:
        calls.append(args)
        return 0

    def mini(work: Path, data: Path) -> None:
        return None

    monkeypatch.setattr(rerank_fit, "collect", collect)
    monkeypatch.setitem(rerank_fit.SETS, "mini", mini)
    return calls


@pytest.mark.parametrize("name", ["convex 0.5", "bm25 rm3 10/10/0.8", "rrf depth 10"])
def test_a_candidate_whose_lists_collect_would_not_apply_is_a_usage_error(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its fusion, mode or depth would be dropped without a word: the pools would be the
    default's (or hybrid's), and a re-ranker refitted on them fitted to the wrong lists."""
    collected = _collected(monkeypatch)
    with pytest.raises(SystemExit) as stopped:
        rerank_fit.main(["collect", "--sets", "mini", "--candidate", name])
    assert stopped.value.code == 2
    assert f"--candidate: {name!r} changes " in capsys.readouterr().err
    assert collected == []


def test_a_candidate_of_rm3_collects_its_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    collected = _collected(monkeypatch)
    name = "rm3 10/10/0.8 flat 0.5"
    assert rerank_fit.main(["collect", "--sets", "mini", "--candidate", name]) == 0
    assert [args[-1] for args in collected] == [rerank_fit.CANDIDATES[name]]


@pytest.mark.parametrize("step", ["fit", "check"])
def test_a_folder_without_pools_is_a_usage_error(
    step: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`fit` on an --out folder no collect wrote to ended in numpy's traceback (np.concatenate
    of no pairs); `check` printed an empty table and exit 0."""
    with pytest.raises(SystemExit) as raised:
        rerank_fit.main([step, "--out", str(tmp_path)])
    assert raised.value.code == 2
    said = capsys.readouterr().err.splitlines()[-1]
    assert f"--out {tmp_path}: no " in said, said
    assert "rerank_fit collect --out` to that folder first" in said, said


def test_pools_without_a_pair_to_fit_on_are_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pools whose relevant documents were never ranked (no relevant/non-relevant pair)."""
    docs = [["notes/a.md", 1, 1, 1, *([0.5] * 6)], ["notes/b.md", 2, 2, 2, *([0.5] * 6)]]
    row = {"set": "til", "split": "dev", "depth": 30, "docs": docs}
    row |= {"relevant": ["notes/elsewhere.md"], "gains": {"notes/elsewhere.md": 1}}
    (tmp_path / "rerank-til.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert len(rerank_fit.pairs(rerank_fit.load(tmp_path, {"dev"}, ["til"], 30))[0]) == 0
    with pytest.raises(SystemExit) as raised:
        rerank_fit.main(["fit", "--out", str(tmp_path)])
    assert raised.value.code == 2
    assert f"--out {tmp_path}: no dev/train pools" in capsys.readouterr().err


def test_fit_with_named_columns_weighs_them_and_leaves_the_others_at_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--features 7,9`: the seven and the IDF share over the pool's best (column 9); the
    weights printed are in NAMES' order, the two columns between at 0 (they were once the
    fitted columns' places, which put column 9's weight on column 7)."""
    rows: list[dict[str, object]] = []
    for n, (good, bad, best) in enumerate([(0.4, 0.2, 0.4), (0.3, 0.6, 0.6), (0.8, 0.4, 0.8)]):
        docs = [
            [f"notes/g{n}.md", 1, 1, 1, 0.5, 1.0, 1.0, 0.5, None, good],
            [f"notes/b{n}.md", 2, 2, 2, 0.5, 1.0, 1.0, 0.5, None, bad],
            [f"notes/o{n}.md", 3, 3, 3, 0.5, 1.0, 1.0, 0.5, None, best],
        ]
        row: dict[str, object] = {"set": "til", "split": "dev", "depth": 20, "docs": docs}
        rows.append(row | {"relevant": [f"notes/g{n}.md"], "gains": {f"notes/g{n}.md": 1}})
    text = "".join(json.dumps(r) + "\n" for r in rows)
    (tmp_path / "rerank-til.jsonl").write_text(text, encoding="utf-8")
    first = rerank_fit.load(tmp_path, {"dev"}, ["til"], 30, [0, 9])[0]
    assert first.x[:, 0].tolist() == [1.0, 0.5, 1.0]  # the share over the pool's best (0.4)

    assert (
        rerank_fit.main(["fit", "--out", str(tmp_path), "--fit-sets", "til", "--features", "7,9"])
        == 0
    )
    line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("WEIGHTS"))
    weights = [float(w) for w in line.removeprefix("WEIGHTS = (").rstrip(")").split(", ")]
    assert len(weights) == 10 and weights[7] == weights[8] == 0.0 and weights[9] != 0.0


def test_features_not_columns_of_numbers_are_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as raised:
        rerank_fit.main(["fit", "--features", "7,x"])
    assert raised.value.code == 2
    assert "argument --features: invalid feature_columns value: '7,x'" in capsys.readouterr().err
