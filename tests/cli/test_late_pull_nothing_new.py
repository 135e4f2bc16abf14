"""The commonest late pull's failure: a `git pull` that fetches nothing new read HEAD, memidx
moved it during its fetch, and git's fast-forward then failed on memidx's files, advising
`git reset --hard` (which throws away the person's uncommitted work). What it pulled was in
its branch all along (it was in the HEAD it read), so judged "its branch holds what it
pulled", its `git pull:` line was never written, or dropped at the first `memidx status`: the
warning never shown. It stays until a merge's or rebase's hook clears it
(memidx.git.late_pull_line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memidx.githooks.hook import run_hook
from tests.helpers import NotesRepo, run_in_process
from tests.late_pulls import NOTE, pull_at_the_look

AGAIN = "run `git pull` again"
# the pull's `git fetch` waits at its start (nothing new comes: no pack to wait at)
HELD_FETCH = """#!/bin/sh
case " $* " in *" fetch "*)
  touch "$PAUSE_AT.in"; while [ ! -e "$PAUSE_AT.go" ]; do sleep 0.02; done;;
esac
exec "$REAL_GIT" "$@"
"""


def _row(repo: NotesRepo) -> str:
    """The `git pull:` row of `memidx status`, "" when none; --json's pull_failure agrees."""
    out = repo.memidx_process("status").out
    row = next((line for line in out.splitlines() if line.startswith("git pull:")), "")
    data = json.loads(repo.memidx_process("status", "--json").out)
    assert (data["pull_failure"] is None) == (row == ""), (row, data["pull_failure"])
    return row


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_pull_that_fetched_nothing_new_keeps_its_line_until_a_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.git import commit as commit_module

    late = pull_at_the_look(tmp_path, monkeypatch, HELD_FETCH, ahead=False)
    one, pulls = late.one, late.pulls
    lock = one.root / ".git" / "refs" / "heads" / "main.lock"
    committers = commit_module.committers

    def found(root: Path, *args: Any, **kwargs: Any) -> dict[str, str]:
        if pulls and not lock.exists():  # the look after the move: another git's lock, held
            lock.write_text("")
        return committers(root, *args, **kwargs)

    monkeypatch.setattr(commit_module, "committers", found)
    try:
        run_in_process(one.root, "remember", "--title", "Agent's note", stdin=NOTE)
    finally:
        lock.unlink(missing_ok=True)
        late.go()
    pulled = late.outcome()
    monkeypatch.undo()
    assert pulled.returncode != 0, pulled.stderr  # nothing put back: it failed, as git says
    assert "reset --hard" in pulled.stderr, pulled.stderr

    first = _row(one)
    assert AGAIN in first and f"pid {pulls[0].pid}" in first, first
    assert _row(one) == first, "a second status keeps it"
    again = one.git("pull", "--no-rebase", "--no-edit")  # as the line says: nothing to merge
    assert "Already up to date" in again, again
    assert _row(one) == first, "an up-to-date pull runs no hook: the line stays"

    run_hook(one.root, "post-merge")  # a merge's hook since: the line is done with
    assert _row(one) == ""
