"""The order `make test` hands its modules to its processes in (tests/work_order.py)."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from tests.work_order import HEAVIEST, ordered

PROJECT = Path(__file__).resolve().parents[2]


def queue(*units: tuple[str, int]) -> OrderedDict[str, dict[str, bool]]:
    return OrderedDict(
        (scope, {f"{scope}::test_{i}": False for i in range(tests)}) for scope, tests in units
    )


def test_the_heaviest_go_first_then_scenarios_then_unit_modules_whatever_their_counts() -> None:
    work = queue(
        ("tests/unit/test_secret_screen.py", 591),
        ("tests/cli/test_search_cli.py", 29),
        ("tests/unit/test_when.py", 32),
        ("tests/unit/test_hostile_front_matter.py", 37),
        ("tests/features/test_features.py", 12),
        ("tests/cli/test_haystack_hard.py", 269),
        ("tests/cli/test_sync_hard.py", 26),
        ("tests/cli/test_agent_hooks.py::TestSearch", 3),
    )

    assert list(ordered(work)) == [
        "tests/cli/test_sync_hard.py",
        "tests/cli/test_haystack_hard.py",
        "tests/features/test_features.py",
        "tests/unit/test_hostile_front_matter.py",
        "tests/cli/test_search_cli.py",
        "tests/cli/test_agent_hooks.py::TestSearch",
        "tests/unit/test_secret_screen.py",
        "tests/unit/test_when.py",
    ]


def test_every_heaviest_unit_is_a_module_of_the_suite() -> None:
    missing = [name for name in HEAVIEST if not (PROJECT / name).is_file()]
    assert missing == [], "renamed or deleted: update HEAVIEST in tests/work_order.py"


def test_units_of_one_rank_keep_their_collection_order_and_every_test() -> None:
    work = queue(("tests/cli/test_b.py", 2), ("tests/cli/test_a.py", 2), ("tests/unit/t.py", 2))

    assert list(ordered(work)) == ["tests/cli/test_b.py", "tests/cli/test_a.py", "tests/unit/t.py"]
    assert ordered(work) == work  # the same units, each with the same tests
