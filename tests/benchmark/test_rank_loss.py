"""The re-ranker's top-aimed fits (rank_loss.py) on toy pools where the pairwise fit is wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.benchmark import rank_loss
from tests.benchmark.rerank_fit import Query, figures


def _pool(first_by_rarity: bool) -> Query:
    """Ten documents, the relevant one fifth in the fused order. Feature 0 (rarity) sets it
    above all the others, or below all of them; feature 1 (fit) sets it below three
    non-relevant documents and above the other six, in every pool."""
    rows: list[list[float]] = []
    keys: list[str] = []
    for i in range(10):
        if i == 5:
            rows.append([1.0 if first_by_rarity else -1.0, 0.5])
            keys.append("relevant")
        else:
            rows.append([0.0, 1.0 if i < 3 else 0.0])
            keys.append(f"other{i}")
    return Query("toy", keys, np.array(rows), {"relevant"}, {"relevant": 1})


# Three pools where rarity puts the relevant first, two where it puts it last. Fit alone gets
# two thirds of every pool's pairs right (the relevant fourth everywhere: MRR@10 0.25); rarity
# gets 27 pairs of 45 right, but the relevant first in three pools of five (MRR@10 0.64).
TOY = [_pool(True) for _ in range(3)] + [_pool(False) for _ in range(2)]


def _first(q: Query, weights: np.ndarray) -> str:
    scores = q.x @ weights
    return q.keys[int(np.argmax(scores))]


def test_the_pairwise_fit_puts_the_relevant_fourth_in_every_pool() -> None:
    weights = rank_loss.fit(TOY, "pairwise", 1e-3)

    _, mrr, _ = figures(TOY, weights)
    assert mrr == pytest.approx(0.25)
    assert all(_first(q, weights) == "other0" for q in TOY)


@pytest.mark.parametrize("loss", ["listnet", "lambda-mrr", "lambda-ndcg"])
def test_a_top_aimed_fit_puts_the_relevant_first_where_it_can(loss: str) -> None:
    weights = rank_loss.fit(TOY, loss, 1e-3, rounds=3)

    _, mrr, _ = figures(TOY, weights)
    assert mrr == pytest.approx(0.64)
    assert [_first(q, weights) for q in TOY[:3]] == ["relevant"] * 3


def test_swap_costs_are_what_the_swap_changes_in_mrr_and_ndcg() -> None:
    """Relevant documents at places 2 and 3, non-relevant at 1 and 4 (scores give the order)."""
    q = Query("toy", ["a", "b", "c", "d"], np.zeros((4, 1)), {"b", "c"}, {"b": 1, "c": 2})
    scores = np.array([4.0, 3.0, 2.0, 1.0])

    mrr = rank_loss.swap_costs(q, scores, "mrr")
    ndcg = rank_loss.swap_costs(q, scores, "ndcg")

    # b or c with a: first place (1 - 1/2); b with d: c becomes the first (1/2 - 1/3); c with d:
    # b stays the first
    np.testing.assert_allclose(mrr, [[0.5, 1 / 2 - 1 / 3], [0.5, 0.0]])
    idcg = 2 + 1 / np.log2(3)
    d = [1.0, 1 / np.log2(3), 0.5, 1 / np.log2(5)]  # nDCG's discount at places 1 to 4
    expected = [[d[0] - d[1], d[1] - d[3]], [2 * (d[0] - d[2]), 2 * (d[2] - d[3])]]
    np.testing.assert_allclose(ndcg, np.array(expected) / idcg)


def test_folds_spread_every_set_over_every_fold() -> None:
    queries = [Query(name, ["x"], np.zeros((1, 1)), set(), {}) for name in "aaaaabbbbb"]

    chosen = rank_loss.folds(queries)

    assert sorted(i for f in chosen for i in f) == list(range(10))
    assert all({queries[i].set for i in f} == {"a", "b"} for f in chosen)


@pytest.mark.parametrize("step", ["cv", "fit"])
def test_a_folder_without_pools_is_a_usage_error(
    step: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not numpy's `need at least one array to concatenate` from deep in the fit."""
    with pytest.raises(SystemExit) as stopped:
        rank_loss.main([step, "--out", str(tmp_path)])

    assert stopped.value.code == 2
    assert (
        f"--out {tmp_path}: no dev pools of golden,til,nfcorpus,locomo" in capsys.readouterr().err
    )
