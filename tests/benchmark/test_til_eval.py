"""The frozen TIL evaluation set is sound: well-formed records, sizes and style mix as written,
no query in both splits, splits as the frozen rule placed them, and (when the data is present)
every answer a real note. The checks themselves are shown to catch each kind of damage."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from pathlib import Path

import pytest

from tests.benchmark.til_eval import (
    SPLITS,
    STYLES,
    EvalQuery,
    everything,
    file_of,
    problems,
    queries,
    til_folder,
)


def test_the_four_files_hold_a_sound_set() -> None:
    assert problems(everything()) == []


def test_each_file_holds_only_its_own_split_and_kind() -> None:
    for split in SPLITS:
        assert {q.split for q in queries(split)} == {split}
        assert {q.split for q in queries(split, answered=False)} == {split}
        assert all(q.answers for q in queries(split)), file_of(split, True)
        assert not any(q.answers for q in queries(split, answered=False)), file_of(split, False)


def test_sizes_and_style_mix() -> None:
    answered = queries("dev") + queries("test")
    negatives = queries("dev", answered=False) + queries("test", answered=False)
    assert len(answered) >= 150
    assert len(negatives) >= 40
    styles = Counter(q.style for q in answered)
    assert set(styles) == set(STYLES)
    assert all(count >= len(answered) / 4 for count in styles.values()), styles


def test_dev_and_test_are_the_same_size_in_every_style() -> None:
    for answered in (True, False):
        dev = Counter(q.style for q in queries("dev", answered))
        test = Counter(q.style for q in queries("test", answered))
        assert all(abs(dev[s] - test[s]) <= 2 for s in STYLES), (dev, test)


def test_every_answer_is_a_note_in_the_til_data() -> None:
    til = til_folder()
    if not til.is_dir():
        pytest.skip(f"no TIL data at {til} (set DATA to the shared data folder)")
    assert problems(everything(), til) == []


def _query(text: str = "undo last commit but keep changes", **change: str) -> EvalQuery:
    """A valid lone query (its id as the rule wants it, dev as the frozen rule places it alone)."""
    q = EvalQuery(
        "til-" + hashlib.sha256(text.encode()).hexdigest()[:10],
        text,
        "paraphrase",
        "git",
        "blind",
        ("git/a.md",),
        "dev",
    )
    return dataclasses.replace(q, **change)


def test_a_lone_valid_query_has_no_problems() -> None:
    assert problems([_query()]) == []


@pytest.mark.parametrize(
    ("damaged", "expected"),
    [
        (_query(style="question"), "style 'question'"),
        (_query(written="later"), "written 'later'"),
        (_query("git undo"), "2 words"),
        (_query("one two three four five six seven eight nine ten eleven twelve 13"), "13 words"),
        (_query(id="til-0000000000"), "id is not"),
        (dataclasses.replace(_query(), answers=("git/b.md", "git/a.md")), "not sorted"),
        (dataclasses.replace(_query(), answers=("/abs/a.md",)), "not <folder>/<note>.md"),
        (_query(split="test"), "the frozen rule puts it in dev"),
    ],
)
def test_each_kind_of_damage_is_caught(damaged: EvalQuery, expected: str) -> None:
    assert any(expected in p for p in problems([damaged])), problems([damaged])


def test_a_query_in_both_splits_is_caught() -> None:
    dev = _query()
    again = _query("Undo last  commit but keep changes", split="test")
    assert any("is also" in p for p in problems([dev, again]))


def test_an_answer_missing_from_the_data_is_caught(tmp_path: Path) -> None:
    (tmp_path / "git").mkdir()
    assert any("no note git/a.md" in p for p in problems([_query()], tmp_path))
    (tmp_path / "git" / "a.md").write_text("# A\n", encoding="utf-8")
    assert problems([_query()], tmp_path) == []
