"""The ranking bench's verdicts: a candidate wins a set only when MRR@10 rises and recall@5
does not fall, and it is adopted only when it wins every set it was not tuned on."""

from __future__ import annotations

import re

import pytest

from tests.benchmark.ranking import Figures, adopted, every_of, verdict


def figures(recall5: float, mrr: float) -> Figures:
    return Figures(recall5, recall5, mrr, mrr, 0.01, 10)


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (figures(0.8, 0.71), "wins"),
        (figures(0.9, 0.71), "wins"),
        (figures(0.8, 0.70), "MRR@10 not up"),
        (figures(0.79, 0.90), "loses recall@5"),
    ],
)
def test_verdict_needs_mrr_up_and_recall_not_down(candidate: Figures, expected: str) -> None:
    assert verdict(figures(0.8, 0.70), candidate) == expected


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([("til", "wins"), ("locomo", "wins"), ("golden", "MRR@10 not up")], True),
        ([("til", "wins"), ("locomo", "loses recall@5"), ("golden", "wins")], False),
        ([("golden", "wins")], False),
        ([], False),
    ],
)
def test_adoption_needs_a_win_on_every_held_out_set(
    verdicts: list[tuple[str, str]], expected: bool
) -> None:
    assert adopted(verdicts) is expected


def test_bench_every_names_a_step_per_set() -> None:
    assert every_of("locomo:4,nfcorpus:2") == {"locomo": 4, "nfcorpus": 2}
    assert every_of("") == {}


def test_every_candidate_can_be_named_in_bench_candidates() -> None:
    """BENCH_CANDIDATES is split at commas: a name with one could never be chosen (the first
    names of the per-kind BM25 candidates had one, and the bench refused them)."""
    from tests.benchmark.candidates import CANDIDATES

    assert [name for name in CANDIDATES if "," in name or name != name.strip()] == []


def test_the_readmes_bench_commands_name_known_candidates_and_splits() -> None:
    """Each `BENCH_CANDIDATES="..."` and `BENCH_SPLIT=` in the README's commands, as sh reads
    them (a backslash-newline joins lines, inside quotes too): the BM25 k1/b command indented
    its second line, so the shell passed "  bm25 k1 ..." and the bench refused it, and its
    `BENCH_SPLIT=dev|test` piped into test(1)."""
    from pathlib import Path

    from tests.benchmark.candidates import CANDIDATES
    from tests.benchmark.judged import SPLITS

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    fences = re.split(r"^```.*\n", readme, flags=re.M)  # the odd parts are the code blocks
    commands = "".join(fences[1::2]).replace("\\\n", "")
    named = [n for v in re.findall(r'BENCH_CANDIDATES="([^"]*)"', commands) for n in v.split(",")]
    assert named and [n for n in named if n not in CANDIDATES and n != "..."] == []
    assert set(re.findall(r"BENCH_SPLIT=([^\s:]*)", commands)) <= set(SPLITS)
