"""A note a `remember` left pending is committed by the hook of a git command that ended, never
by one run in the middle of a git command (memidx.githooks.hook.MIDWAY): there git still holds
HEAD's ref (reference-transaction) or is applying an autostash (post-index-change), and a commit
of memidx's would move HEAD under it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_mark import any_pending
from memidx.memory.pending_notes import keep
from tests.machines import Machine, clone, hook_env, make_template

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def _head(machine: Machine) -> str:
    return machine.git("rev-parse", "HEAD").strip()


@pytest.mark.parametrize("midway", ["post-index-change", "reference-transaction"])
def test_a_hook_run_midway_commits_no_pending_note(machine: Machine, midway: str) -> None:
    text = f"---\ntitle: Pending note\ncreated: '2026-12-05'\n---\n\n{BODY}"
    (machine.root / "notes" / "pending-note.md").write_text(text)
    config = load_config(machine.root, env={})
    keep(config, "notes/pending-note.md", "Pending note", text, "refs/heads/main")
    before = _head(machine)

    run = machine.memidx_process("hook", midway)

    assert run.code == 0 and "Traceback" not in run.err, run.err
    assert _head(machine) == before and "committed" not in run.out + run.err
    assert any_pending(config)
    ended = machine.memidx_process("hook", "post-merge")  # the command's end commits it
    assert ended.code == 0 and "remembered while git was busy" in ended.out, ended.out
    assert machine.git("log", "--format=%s", "-1", "--", "notes/pending-note.md").startswith(
        "memidx remember: "
    )
    assert not any_pending(config)
