"""A seeded random driver of real git operations on two clones of a bare remote, with memidx's
hooks installed by pre-commit; agents file turns into each clone's haystack between the git
operations and commit its segments (`memidx haystack commit`, or `git add -A` with the notes).
After every operation the index that the hooks maintained incrementally is compared with a
fresh rebuild of the same HEAD and the segments on disk (documents, skipped files, chunks,
vectors, full-text search) and `memidx reconcile` must find no drift. Divergences are
collected, not asserted, so a test can require none and a benchmark can count them.

Reproduce a run with `python -m tests.benchmark.gitops --seed SEED --ops N`: the same operations
on the same files (commit ids differ once segments are committed: record ids are random).
"""

from tests.gitops.driver import GitOpsDriver, run_seed
from tests.gitops.results import Divergence, RunResult

__all__ = ["Divergence", "GitOpsDriver", "RunResult", "run_seed"]
