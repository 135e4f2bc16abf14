"""A `git switch` of this work tree that outlasts memidx's wait (a long LFS smudge, say) kept
a remember's note uncommitted, which is right, but memidx said `HEAD kept moving` of a HEAD
that never moved. It names the switch now.

The switch is a shell started through a link named `git` (`git -c <script> switch side` in
the process table), which sleeps past the wait and holds no lock: real git holds its index
lock throughout, which memidx names already."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_switch_at_the_move import BODY, machine_with_a_side_branch


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_switch_that_outlasts_the_wait_is_named(tmp_path: Path) -> None:
    machine = machine_with_a_side_branch(tmp_path)
    link = tmp_path / "switching" / "git"
    link.parent.mkdir()
    link.symlink_to("/bin/sh")
    switch = subprocess.Popen(
        [str(link), "-c", "sleep 30", "switch", "side"], cwd=machine.root,
        start_new_session=True,
    )  # fmt: skip
    try:
        said = machine.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
    finally:
        os.killpg(switch.pid, signal.SIGKILL)  # the shell and its sleep
        switch.wait(timeout=10)
    assert "HEAD kept moving" not in said.err, said.err
    assert "a git switch or checkout here is still under way" in said.err, said.err
