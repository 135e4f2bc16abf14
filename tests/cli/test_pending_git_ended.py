"""A note left pending while a cherry-pick, revert or `git am` waits on a conflict, for longer
than the finisher `remember` started looks (10 minutes): the `--abort`, `--skip` or `--quit`
that ends it runs no post-* hook, and the note waited for the next `remember` or `memidx sync`.
The reference-transaction hook git runs for it (the pick's pseudo-ref deleted; HEAD written
where it was, for `git am --abort`) starts a finisher, which commits it once git lets go."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory import remember as remember_module
from memidx.memory.pending_finisher import LOG
from memidx.memory.pending_mark import FOLDER, any_pending
from memidx.memory.pending_notes import keep
from memidx.memory.remember import remember
from tests.machines import Machine, clone, environment, hook_env, make_template

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a finisher needs /proc")


def _no_finisher(*_: object) -> None:
    """As the finisher `remember` started, once its 10 minutes ran out."""


def _stopped(tmp_path: Path, start: str) -> Machine:
    """A clone where `start` (cherry-pick, revert, am) stopped on a conflict in notes/start.md."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    machine.note("start.md", "start.md", "the first line")
    machine.commit("start", checks=False)
    machine.git("checkout", "-q", "-b", "topic")
    machine.note("start.md", "start.md", "the topic's line")
    machine.commit("topic", checks=False)
    machine.git("format-patch", "-q", "-1", "-o", str(tmp_path / "patches"))
    machine.git("checkout", "-q", "main")
    machine.note("start.md", "start.md", "main's line")
    machine.commit("main", checks=False)
    if start == "am":
        [patch] = (tmp_path / "patches").iterdir()
        stopped = machine.run_git("am", "-3", str(patch))
    elif start == "revert":
        machine.note("start.md", "start.md", "main's second line")
        machine.commit("main two", checks=False)
        stopped = machine.run_git("revert", "--no-edit", "HEAD~1")  # "main": the line changed
    else:
        stopped = machine.run_git("cherry-pick", "topic")
    assert stopped.returncode != 0, stopped.stdout + stopped.stderr
    return machine


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("cherry-pick", "--abort"),
        ("cherry-pick", "--skip"),
        ("cherry-pick", "--quit"),
        ("revert", "--abort"),
        ("am", "--abort"),
        ("am", "--skip"),  # of its last patch
    ],
)
def test_a_note_pending_past_the_finisher_is_committed_when_git_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: str, end: str
) -> None:
    machine = _stopped(tmp_path, start)
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    with environment({"MEMIDX_ROOT": str(machine.root), **machine.env}):
        config = load_config(machine.root)
        kept = remember(config, "Stop note", "Kept while git waits on a conflict.\n")
    assert kept.commit is None and any_pending(config)

    ended = machine.run_git(start, end)

    assert ended.returncode == 0, ended.stdout + ended.stderr
    for _ in range(200):  # 20 s at most: the finisher looks every 0.5 s
        if not any_pending(config):
            break
        time.sleep(0.1)
    assert not any_pending(config)
    assert machine.git("log", "-1", "--format=%s") == "memidx remember: Stop note\n"
    assert kept.ref not in machine.git("status", "--porcelain")


@pytest.mark.parametrize("command", [("reset", "-q", "--hard"), ("reset", "-q"), ("stash", "-q")])
def test_a_reset_or_stash_with_a_note_pending_starts_no_memidx(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """`git reset` and `git stash` write HEAD where it was, as `git am --abort` does: with a
    note pending, each started memidx in the middle of the command (~0.3 s) and a finisher,
    where the README says a stash starts nothing."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    machine.note("start.md", "start.md", "the first line")
    machine.commit("start", checks=False)
    config = load_config(machine.root, env={})
    text = "---\ntitle: Disk full\n---\n\nThe disk was full of old logs.\n"
    machine.write("notes/disk-full.md", text)
    keep(config, "notes/disk-full.md", "Disk full", text, "refs/heads/main")
    machine.write("notes/start.md", "# Start\n\nAn edit for the stash to take.\n")

    done = machine.run_git(*command)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "memidx" not in done.stdout + done.stderr
    assert not (config.state_dir / FOLDER / LOG).exists()  # no finisher was started
    assert any_pending(config)


def test_the_finisher_a_git_end_starts_is_not_told_git_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference-transaction shim's MEMIDX_GIT_ENDED=1 was passed on to the finisher the
    hook started, and to every process that finisher started in turn, where it means nothing
    (any memidx hook those ran would take it as its own git's end)."""
    from memidx.git import process
    from memidx.githooks.hook import ENDED, run_hook

    env = hook_env(tmp_path / "pre-commit-home")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    machine.note("start.md", "start.md", "the first line")
    machine.commit("start", checks=False)
    config = load_config(machine.root, env={})
    text = "---\ntitle: Disk full\n---\n\nThe disk was full of old logs.\n"
    machine.write("notes/disk-full.md", text)
    keep(config, "notes/disk-full.md", "Disk full", text, "refs/heads/main")
    inherited: list[str | None] = []

    def spawned(argv: list[str], log: Path) -> int:
        inherited.append(os.environ.get(ENDED))  # what the child's environment would hold
        return 0

    monkeypatch.setattr(process, "spawn_detached", spawned)
    monkeypatch.setenv(ENDED, "1")  # as the shim sets it for `git cherry-pick --abort`, say

    assert run_hook(machine.root, "reference-transaction") == 0

    assert inherited == [None]  # the finisher was started, without the shim's variable
