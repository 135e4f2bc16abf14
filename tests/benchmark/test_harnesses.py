"""The `writers` and `faults` bench sections on tiny configurations: they run end to end and
print the figures issue #12 asks for (the figures themselves are the bench's business).
Together ~15 s."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmark.faults.kills import run_kills
from tests.benchmark.writers import simulate


def test_writers_on_two_clones_print_presence_rebuilds_and_growth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    simulate(tmp_path, clones=2, seconds=1.0, seed=1)
    out = capsys.readouterr().out
    for figure in (
        "shares while writing:",
        "shares to quiesce:",
        "quiesce converged: yes",
        "remote     records",
        "c1 index   records",
        "index equal to a fresh rebuild (memidx ingest into another file): ",
        "mean per clone per day:",
    ):
        assert figure in out, out
    acknowledged = next(line for line in out.splitlines() if line.startswith("acknowledged:"))
    assert not acknowledged.startswith("acknowledged: 0 records"), out


def test_kill_campaign_checks_every_run_and_what_was_acknowledged(tmp_path: Path) -> None:
    killed = run_kills(tmp_path, seed=1, kills=2)
    assert killed.runs == 2
    assert killed.acknowledged > 30  # 20 seed notes, 10 seed turns, the editor's lines
    assert sum(n for what, n in killed.seen.items() if "before recovery" in what) == 2
    assert {what.split()[1][:-1] for what in killed.seen if what.startswith("calibrated")} == {
        "ingest", "embed", "file-turn", "remember", "commit"
    }  # fmt: skip
