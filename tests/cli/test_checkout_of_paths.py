"""A `git checkout` that restores files (`git checkout -p` at its prompt, `git checkout --
file`) checks no branch out: memidx's move of HEAD does not wait for it. It did (wt-straddle's
look for switches took every `git checkout`): a remember beside a `git checkout -p` waiting for
the person's answer took 10 s, then said `HEAD kept moving` and left its note uncommitted."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from tests.alone import memidx_waiting_long
from tests.cli.test_switch_at_the_move import BODY, NOTE, machine_with_a_side_branch


def test_a_remember_beside_a_checkout_p_at_its_prompt_commits_at_once(tmp_path: Path) -> None:
    """Told by what the remember did, its wait made long (memidx_waiting_long): one that
    waited for the checkout is still waiting when given up on."""
    machine = machine_with_a_side_branch(tmp_path)
    (machine.root / "notes" / "first.md").write_text("---\ntitle: First\n---\n\nedited\n")
    prompt = subprocess.Popen(  # git waits at "Discard this hunk from worktree [y,n,q,a,d,e,?]?"
        ["git", "checkout", "-p"], cwd=machine.root, env=machine.env, stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        time.sleep(0.5)
        assert prompt.poll() is None
        said = memidx_waiting_long(machine, "remember", "--title", "WSL memory", stdin=BODY)
    finally:
        prompt.kill()
        prompt.wait(timeout=10)
    assert said.code == 0 and "not committed" not in said.err, said.err
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "HEAD")
