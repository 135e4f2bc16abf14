"""The order in which `make test` hands the suite's modules to its processes (pytest-xdist's
`--dist loadscope`, where a module or a class is one unit run whole by one process).

xdist hands out the units with the most tests first. A test's cost is not its count: the
scenarios of tests/cli and tests/features run real git, hooks and memidx processes (seconds a
test, often a handful of tests a module), while tests/unit runs hundreds of in-memory tests a
second. Ordered by count, the few-test scenario modules came last, and the run ended with one
process alone on them while the other sat idle. Here every scenario unit goes before every
unit of tests/unit (each group still most tests first): the last minutes are small unit modules,
which either process takes up as soon as it is free, so both finish close together.

Before both, the heaviest units, longest first (each module's wall time in pytest's junit of
`make test` on 2 cores): a unit of minutes that starts late ends the run alone, however the rest
is ordered, and so does one of 15 s among the unit modules, whose count put it last (a heavy
unit module has few tests: 6 ratios of CPU over a MB of text, 3 walks of every module's syntax).
A name here that the suite no longer has is ignored; a new heavy module belongs here.
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from xdist.remote import Producer  # pyright: ignore[reportMissingTypeStubs]
from xdist.scheduler import LoadScopeScheduling  # pyright: ignore[reportMissingTypeStubs]
from xdist.workermanage import WorkerController  # pyright: ignore[reportMissingTypeStubs]

# the folders of in-process tests: cheap, many, and handed out last to fill the end of the run
FILLERS = ("tests/unit/",)
# the units that take longest, longest first: every module of 10 s or more of wall time under
# `make test` (pytest's junit of a run on 2 cores, 2026-12-07; the figure beside each name),
# each a unit that, started late, ends the run alone; the rest take under 10 s each
HEAVIEST = (
    "tests/cli/test_sync_hard.py",  # 199.3
    "tests/cli/test_haystack_hard.py",  # 144.3
    "tests/cli/test_git_scenarios.py",  # 85.3
    "tests/cli/test_purge_work_tree_parts.py",  # 61.5
    "tests/cli/test_purge_work_trees.py",  # 55.0
    "tests/cli/test_random_git_ops.py",  # 54.7
    "tests/cli/test_mcp_finish.py",  # 53.3
    "tests/cli/test_real_model.py",  # 51.4
    "tests/cli/test_hooks_hard.py",  # 46.6
    "tests/cli/test_share.py",  # 46.2
    "tests/cli/test_remember.py",  # 45.8
    "tests/cli/test_git_sync.py",  # 44.6
    "tests/cli/test_forget.py",  # 43.5
    "tests/cli/test_codex_gemini_e2e.py",  # 39.1
    "tests/cli/test_exported_hooks.py",  # 36.7
    "tests/cli/test_haystack_cli.py",  # 36.4
    "tests/cli/test_remember_live_rebase.py",  # 36.3
    "tests/cli/test_two_machines.py",  # 34.2
    "tests/cli/test_forgotten_back.py",  # 33.9
    "tests/cli/test_staged_checks.py",  # 33.9
    "tests/cli/test_drift_check_follow.py",  # 33.1
    "tests/cli/test_staged_names.py",  # 31.3
    "tests/cli/test_mcp_remembers_in_time.py",  # 30.4
    "tests/cli/test_claude_code_e2e.py",  # 29.5
    "tests/cli/test_compaction_e2e.py",  # 29.0
    "tests/cli/test_mcp_batch.py",  # 28.9
    "tests/cli/test_purge_refs.py",  # 28.2
    "tests/cli/test_pending_switch.py",  # 27.2
    "tests/cli/test_mcp_robustness.py",  # 27.0
    "tests/benchmark/test_harnesses.py",  # 26.9
    "tests/cli/test_mcp_server.py",  # 25.7
    "tests/cli/test_purge_writers.py",  # 24.5
    "tests/cli/test_own_hooks.py",  # 22.6
    "tests/cli/test_mcp_shared.py",  # 22.4
    "tests/cli/test_index_faults.py",  # 22.0
    "tests/cli/test_autostash_sync.py",  # 21.9
    "tests/cli/test_purge_filing_in_time.py",  # 21.6
    "tests/cli/test_late_pull_fetch.py",  # 20.8
    "tests/cli/test_check_parts.py",  # 19.4
    "tests/cli/test_autostash_stops.py",  # 19.4
    "tests/cli/test_switch_at_the_move.py",  # 18.9
    "tests/cli/test_remember_folders.py",  # 18.7
    "tests/unit/test_english_bounds.py",  # 17.3
    "tests/unit/test_frontmatter.py",  # 16.4
    "tests/cli/test_agent_hooks.py",  # 16.0
    "tests/cli/test_share_like_git_merge.py",  # 15.5
    "tests/cli/test_remember_in_rebase.py",  # 15.5
    "tests/cli/test_mcp_stops.py",  # 15.2
    "tests/cli/test_share_killed_in_its_follow.py",  # 15.2
    "tests/unit/test_secret_judged_once.py",  # 15.1
    "tests/cli/test_pending_elsewhere_lock.py",  # 14.9
    "tests/cli/test_share_merge_config.py",  # 14.8
    "tests/cli/test_mcp_cancel_named.py",  # 14.6
    "tests/cli/test_share_in_the_way.py",  # 14.5
    "tests/cli/test_purge_race.py",  # 14.4
    "tests/cli/test_no_network.py",  # 14.4
    "tests/features/test_features.py",  # 14.3
    "tests/cli/test_forget_autostash.py",  # 14.3
    "tests/cli/test_index_health.py",  # 14.3
    "tests/cli/test_refused_commits.py",  # 13.3
    "tests/cli/test_switch_back_put_back.py",  # 13.1
    "tests/cli/test_mcp_front_left.py",  # 13.0
    "tests/cli/test_model_cache.py",  # 12.6
    "tests/cli/test_move_follow_killed.py",  # 12.5
    "tests/cli/test_switch_outlasts_the_wait.py",  # 12.4
    "tests/cli/test_recall_server.py",  # 12.3
    "tests/cli/test_agent_hooks_others.py",  # 12.3
    "tests/unit/test_one_implementation.py",  # 12.0
    "tests/cli/test_mcp_hard.py",  # 11.8
    "tests/cli/test_pending_branch_deleted.py",  # 11.8
    "tests/benchmark/test_calibration.py",  # 11.8
    "tests/cli/test_purge_git_after_its_wait.py",  # 11.5
    "tests/cli/test_forget_vectors_later.py",  # 11.5
    "tests/cli/test_pending_finisher.py",  # 11.4
    "tests/cli/test_ingest_bad_input.py",  # 11.2
    "tests/unit/test_language_hard.py",  # 11.0
    "tests/cli/test_remember_in_line.py",  # 10.8
    "tests/unit/test_hostile_front_matter.py",  # 10.6
    "tests/cli/test_pending_git_ended.py",  # 10.5
    "tests/cli/test_gemini_trust_words.py",  # 10.5
    "tests/cli/test_forget_transient.py",  # 10.4
    "tests/cli/test_switch_during_commit.py",  # 10.3
    "tests/cli/test_forget_record_vectors.py",  # 10.3
    "tests/unit/test_quoted_pieces.py",  # 10.3
    "tests/unit/test_message_catalogs.py",  # 10.0
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
