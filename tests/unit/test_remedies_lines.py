"""memidx.remedies reads a rule on its own line (a continuation line `\\` joins): its pattern's
`\\s` crossed line ends, so a target's name on a line of a variable's list, unindented, was
taken for a rule when a later line held one (`make reconcile`: "No rule to make target"),
and a Makefile of many lines with no `:` took seconds to read, in every pre-commit check."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.remedies import command_for
from tests.cpu_cost import least_ratio

LISTED = "TARGETS = embed \\\nreconcile \\\nlint\nall:\n\ttrue\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LISTED, "memidx reconcile --fix"),  # listed in a variable: no rule
        ("# run\nreconcile\nall:\n\ttrue\n", "memidx reconcile --fix"),
        ("build \\\n  reconcile: ready\n\ttrue\n", "make reconcile"),  # a continued rule
        ("reconcile \\\n  build: ready\n\ttrue\n", "make reconcile"),
        ("reconcile: ready\n", "make reconcile"),
    ],
)
def test_a_rule_is_read_within_its_own_line(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "Makefile").write_text(text, encoding="utf-8")
    assert command_for(tmp_path, "reconcile") == expected


def test_a_long_makefile_without_rules_is_read_at_once(tmp_path: Path) -> None:
    """3,000 lines of words and no `:` (2,000 took 2.4 s, quadratic): 16x the lines take ~16x
    the CPU time, weighed against the smaller file read just before (not seconds of the wall
    clock, which counts every other process on a busy machine)."""
    line = " ".join(f"word{i}" for i in range(10))
    small, large = tmp_path / "small", tmp_path / "large"
    for folder, lines in ((small, 250), (large, 4_000)):
        folder.mkdir()
        (folder / "Makefile").write_text(f"{line}\n" * lines, encoding="utf-8")
        assert command_for(folder, "reconcile") == "memidx reconcile --fix"
    least, ratios = least_ratio(
        lambda: command_for(large, "reconcile"), lambda: command_for(small, "reconcile"), below=64
    )
    assert least < 64, f"16x the lines took {ratios}x the time"
