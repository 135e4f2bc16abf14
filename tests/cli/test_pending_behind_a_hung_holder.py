"""A process that holds remember.lock and hangs (not stopped): each remember in line answers
pending, the finisher gives up after its 10 minutes, and `memidx status` said "no git holds
the clone now, and no finisher runs: the next `memidx remember` or `memidx sync` commits it",
though both wait 30 s for that lock and fail. Now status names the holder and what to do."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_branch import head_branch
from memidx.memory.pending_notes import LOCK, keep
from tests.pending_memory import REF, TEXT, started

pytestmark = pytest.mark.skipif(
    not Path("/proc/locks").is_file(), reason="a lock's holder is seen in /proc"
)
HOLDER = (
    "import fcntl, sys, time\n"
    "f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.mark.parametrize("stopped", [False, True])
def test_status_names_the_holder_of_remember_lock_and_what_to_run(
    tmp_path: Path, stopped: bool
) -> None:
    repo = started(tmp_path)
    repo.write(REF, TEXT)
    config = load_config(repo.root, env={})
    branch = head_branch(config)
    assert branch is not None
    keep(config, REF, "Disk full", TEXT, branch)
    lock = config.state_dir / LOCK
    config.state_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", HOLDER, str(lock)]
    holder = subprocess.Popen(argv, stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        if stopped:
            holder.send_signal(signal.SIGSTOP)
        [shown] = repo.memidx("status", "--json").json()["pending_notes"]
    finally:
        holder.kill()
        holder.send_signal(signal.SIGCONT)
        holder.wait(timeout=10)
    why = shown["why"]
    assert f"(pid {holder.pid}) holds {lock}" in why, why
    assert "the next `memidx remember`" not in why
    if stopped:
        assert f"`kill -CONT {holder.pid}`) or end it, then run `memidx sync`" in why, why
    else:
        assert f"if it hangs, end it: `kill {holder.pid}`, then run `memidx sync`" in why, why
