"""The line `memidx status` shows of a late `git pull` memidx could not put HEAD back for
(`git pull:`, memidx.git.late_pull): the newest one not done with (memidx.git.late_pull_line:
that pull ended and its branch holds what it pulled, which it lacked as the pull read it; one
whose pull had nothing new to merge waits for a merge's or rebase's hook). Once none is left,
the trace goes, as such a hook removes it: a pull again that found nothing to merge runs none."""

from __future__ import annotations

from memidx.config import Config
from memidx.git.late_pull_line import done_with
from memidx.index.failures import HookFailure, clear_unchanged, failures_in, trace_marks, traces


def open_pull_line(config: Config, *, tidy: bool = True) -> HookFailure | None:
    """The newest late pull's line not done with, else None (its traces then removed, `tidy`,
    unless a line came since they were read: waiting for their lock, LOCK_WAIT at most)."""
    paths = traces(config.root, config.pull_error_path)
    marks = trace_marks(*paths)  # before the read: a line written since keeps its trace
    found = sorted((f for path in paths for f in failures_in(path)), key=lambda f: f.when)
    if not found or not config.in_git:
        return found[-1] if found else None
    judged: dict[str, bool] = {}  # a trace of many lines: one look per pull
    held: dict[str, bool] = {}  # and git asked once per branch, what it pulled, and from
    for failure in reversed(found):
        if failure.about and failure.about not in judged:
            judged[failure.about] = done_with(config.root, failure.about, held)
        if not failure.about or not judged[failure.about]:
            return failure
    if tidy:
        clear_unchanged(marks)
    return None
