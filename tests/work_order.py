"""The order in which `make test` hands the suite's modules to its processes (pytest-xdist's
`--dist loadscope`, where a module or a class is one unit run whole by one process).

xdist hands out the units with the most tests first. A test's cost is not its count: the
scenarios of tests/cli and tests/features run real git, hooks and memidx processes (seconds a
test, often a handful of tests a module), while tests/unit runs hundreds of in-memory tests a
second. Ordered by count, the few-test scenario modules came last, and the run ended with one
process alone on them while the other sat idle. Here every scenario unit goes before every
unit of tests/unit (each group still most tests first): the last minutes are small unit modules,
which either process takes up as soon as it is free, so both finish close together.

Before both, the heaviest units, longest first (measured with `pytest --durations` on 2 cores):
a unit of several minutes that starts late ends the run alone, however the rest is ordered. A
name here that the suite no longer has is ignored; a new heavy module belongs here.
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from xdist.remote import Producer  # pyright: ignore[reportMissingTypeStubs]
from xdist.scheduler import LoadScopeScheduling  # pyright: ignore[reportMissingTypeStubs]
from xdist.workermanage import WorkerController  # pyright: ignore[reportMissingTypeStubs]

# the folders of in-process tests: cheap, many, and handed out last to fill the end of the run
FILLERS = ("tests/unit/",)
# the units that take longest, longest first (each over ~1.5 % of the suite's time)
HEAVIEST = (
    "tests/cli/test_sync_hard.py",
    "tests/cli/test_git_scenarios.py",
    "tests/cli/test_random_git_ops.py",  # its fixture runs every seed, 7 processes at once
    "tests/cli/test_haystack_hard.py",
    "tests/cli/test_git_sync.py",
    "tests/cli/test_real_model.py",
    "tests/cli/test_purge_work_tree_parts.py",
    "tests/cli/test_haystack_cli.py",
    "tests/cli/test_forget.py",
    "tests/cli/test_hooks_hard.py",
    "tests/cli/test_own_hooks.py",
    "tests/cli/test_mcp_robustness.py",
    "tests/cli/test_staged_names.py",
    "tests/benchmark/test_harnesses.py",
    "tests/unit/test_hostile_front_matter.py",  # hypothesis: thousands of examples
    "tests/cli/test_exported_hooks.py",
    "tests/benchmark/test_calibration.py",
    "tests/unit/test_frontmatter.py",  # hypothesis
    "tests/cli/test_hermes_plugin.py",
)


def unit_rank(scope: str, tests: int) -> tuple[int, bool, int]:
    """Where a unit (a module, or a class) goes in the queue: the heaviest first, longest
    first; then the scenarios, then the fillers, in each the units with the most tests first
    (xdist's own order)."""
    heavy = HEAVIEST.index(scope) if scope in HEAVIEST else len(HEAVIEST)
    return (heavy, scope.startswith(FILLERS), -tests)


def ordered(queue: OrderedDict[str, dict[str, bool]]) -> OrderedDict[str, dict[str, bool]]:
    """The work queue in `unit_rank` order (stable: equal ranks keep their collection order)."""
    return OrderedDict(sorted(queue.items(), key=lambda item: unit_rank(item[0], len(item[1]))))


class ScenariosFirst(LoadScopeScheduling):
    """`--dist loadscope`, with the units handed out in `unit_rank` order."""

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self.reordered = False

    def _assign_work_unit(self, node: WorkerController) -> None:
        # the queue is complete when the first unit is handed out (xdist's schedule() fills it
        # and then assigns): order it once, there
        if not self.reordered:
            self.workqueue = ordered(self.workqueue)
            self.reordered = True
        super()._assign_work_unit(node)
