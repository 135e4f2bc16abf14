"""The order in which `make test` hands the suite's modules to its processes (pytest-xdist's
`--dist loadscope`, where a module or a class is one unit run whole by one process).

xdist hands out the units with the most tests first. A test's cost is not its count: the
scenarios of tests/cli and tests/features run real git, hooks and memidx processes (seconds a
test, often a handful of tests a module), while tests/unit runs hundreds of in-memory tests a
second. Ordered by count, the few-test scenario modules came last, and the run ended with one
process alone on them while the other sat idle. Here every scenario unit goes before every
unit of tests/unit (each group still most tests first): the last minutes are small unit modules,
which either process takes up as soon as it is free, so both finish close together.
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from xdist.remote import Producer  # pyright: ignore[reportMissingTypeStubs]
from xdist.scheduler import LoadScopeScheduling  # pyright: ignore[reportMissingTypeStubs]
from xdist.workermanage import WorkerController  # pyright: ignore[reportMissingTypeStubs]

# the folders of in-process tests: cheap, many, and handed out last to fill the end of the run
FILLERS = ("tests/unit/",)


def unit_rank(scope: str, tests: int) -> tuple[bool, int]:
    """Where a unit (a module, or a class) goes in the queue: scenarios first, then the fillers;
    in each, the units with the most tests first (xdist's own order)."""
    return (scope.startswith(FILLERS), -tests)


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
