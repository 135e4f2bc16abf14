"""The finisher a remember starts and the post-commit hook of the person's commit it waited
for both commit pending notes: each note must be committed once, whichever comes first, the
person's commit must land as they staged it, and the finisher must end."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.memory.pending_mark import any_pending
from memidx.memory.remember import remember
from tests.machines import Machine, clone, environment, hook_env, make_template
from tests.pending_runs import finishers, until

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_the_finisher_and_the_post_commit_hook_commit_a_note_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.0)
    started, go = tmp_path / "started", tmp_path / "go"
    editor = tmp_path / "editor.sh"  # the person, in their editor (30 s at most)
    editor.write_text(
        f"#!/bin/sh\ntouch {started}\ni=0\n"
        f"while [ ! -e {go} ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\n"
        'echo "The build cache note" > "$1"\n'
    )
    editor.chmod(0o755)
    (machine.root / "notes" / "cache.md").write_text("# Build cache\n\nKeyed by the lock file.\n")
    machine.git("add", "notes/cache.md")
    before = machine.git("rev-parse", "HEAD").strip()
    person = subprocess.Popen(
        ["git", "-c", "user.name=p", "-c", "user.email=p@p.invalid", "commit", "-q"],
        cwd=machine.root, env={**machine.env, "GIT_EDITOR": str(editor)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert until(started.exists, 30), person.communicate(timeout=5)
        with environment({"MEMIDX_ROOT": str(machine.root), **machine.env}):
            config = load_config(machine.root)
            said: list[str] = []
            done = remember(config, "Editor note", BODY, notice=said.append)
        assert done.commit is None, said  # the person's commit is under way: pending
        time.sleep(1.0)  # the finisher looks meanwhile, and waits
        go.touch()
        _, err = person.communicate(timeout=60)
    finally:
        go.touch()
        person.kill()
        person.wait()
    assert person.returncode == 0, err
    assert until(lambda: not any_pending(config), 20), "the note stayed pending"
    assert until(lambda: not list(finishers(machine.root)), 10), "the finisher did not end"
    subjects = machine.git("log", "--format=%s", f"{before}..HEAD").splitlines()
    assert sorted(subjects) == ["The build cache note", "memidx remember: Editor note"], subjects
    added = machine.git("log", "--format=%s", "--", "notes/editor-note.md").splitlines()
    assert added == ["memidx remember: Editor note"]
    assert machine.git("status", "--porcelain").strip() == ""
