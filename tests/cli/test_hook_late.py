"""A hook that ends past its deadline says so: a notice in its trace with the time on its own
clock (memidx/agents/runner.py's LATE). The deadline tests (test_hooks_hard.py) read that
clock, not the wall clock of a loaded machine, where the start of a Python process took
seconds: this is what makes them fail when a hook really is late."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents.hook_clock import GRACE
from tests.cli.test_agent_hooks import memory
from tests.helpers import MEMIDX_BIN, clean_env

# the hook's process, its main thread held past the deadline once it stopped waiting for its
# work (as a machine starving it, or its work holding Python, would)
HELD = """\
import sys, threading, time
from memidx.agents import runner
join = threading.Thread.join
def held(self, timeout=None):
    join(self, timeout)
    time.sleep(float(sys.argv[1]))
threading.Thread.join = held
runner.run_hook("claude-code", "UserPromptSubmit")
"""


def hook_held(tmp_path: Path, held: float) -> list[str]:
    """The trace of a prompt hook whose stdin is never closed (it gives up at its deadline of
    0.2 s), held `held` seconds more."""
    repo = memory(tmp_path)
    env = clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_AGENT_DEADLINE="0.2", MEMIDX_HOOK_EMBED="0")
    with subprocess.Popen(
        [sys.executable, "-c", HELD, str(held)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, cwd=tmp_path, env=env,
    ) as process:  # fmt: skip
        assert process.stdin is not None and process.stderr is not None
        process.stdin.write(b'{"session_id": "s", "prompt": "how do I cap vm')
        process.stdin.flush()  # and never closed
        try:
            assert process.wait(timeout=60) == 0
        finally:
            process.kill()
        assert process.stderr.read() == b""
    log = repo.root / ".memidx" / "agent-hook-error.log"
    return log.read_text(encoding="utf-8").splitlines()


def test_a_hook_held_past_its_deadline_says_so_in_a_notice(tmp_path: Path) -> None:
    """A hook that kept the agent waiting past its deadline said nothing of it: its answer (or
    its giving up) looked on time, and its deadline could only be told by the wall clock."""
    notice, gave_up = hook_held(tmp_path, 1.5)

    assert "\tclaude-code UserPromptSubmit\tno answer within 0.2 s: gave up" in gave_up
    said = re.search(
        r"\tnotice: answered (\d+\.\d) s after it began \((\d+\.\d) s of it starting\), "
        r"past its 0.2 s deadline$",
        notice,
    )
    assert said is not None, notice
    assert float(said.group(1)) >= 1.7, notice
    assert float(said.group(2)) < 1.0, notice  # its start, fast enough: the hold made it late


@pytest.mark.parametrize("deadline", ["inf", "1e400", "-1", "soon"])
def test_a_deadline_that_is_no_number_of_seconds_is_traced_and_answered_with_nothing(
    tmp_path: Path, deadline: str
) -> None:
    """MEMIDX_AGENT_DEADLINE=inf overflowed the worker's wait: the hook exited 1 with its
    traceback in the StringIO that keeps its stderr, no trace at all (a -1 was "answered 0.3 s
    after it began, past its -1 s deadline"; "soon" an unknown agent or event)."""
    repo = memory(tmp_path)
    env = clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_AGENT_DEADLINE=deadline)
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "claude-code", "UserPromptSubmit"],
        input=b'{"session_id": "s", "prompt": "how do I cap vmmem on WSL?"}', cwd=tmp_path,
        env=env, capture_output=True, timeout=60, check=False,
    )  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [line] = (repo.root / ".memidx" / "agent-hook-error.log").read_text().splitlines()
    said = f"\tclaude-code UserPromptSubmit\tMEMIDX_AGENT_DEADLINE={deadline}: not a number of "
    assert said + "seconds (unset it)" in line


def _slow_start(tmp_path: Path, seconds: int, event: str, payload: bytes) -> str:
    """Claude Code's `event` hook run with `seconds` of sleep before memidx is imported (a slow
    start), on a memory with a note: it exits 0 and prints nothing; its hook trace."""
    repo = memory(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    slow = f"import time\ntime.sleep({seconds})\n"
    (site / "sitecustomize.py").write_text(slow, encoding="utf-8")
    env = clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0", PYTHONPATH=str(site))
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "claude-code", event],
        input=payload, cwd=tmp_path, env=env, capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    return (repo.root / ".memidx" / "agent-hook-error.log").read_text(encoding="utf-8")


def test_a_hook_slow_to_start_has_its_start_on_its_clock(tmp_path: Path) -> None:
    """The hook's clock started in run_hook, after Python's start and memidx's imports: a hook
    3 s in starting (a slow import, a starved machine) still gave its work the whole 1.5 s
    and said nothing, the agent kept waiting 4.5 s by a hook "on time". Its start is on its
    clock now (the process's, /proc's on Linux), and says how late; its work still gets a
    short grace (runner.GRACE) so that a late start on a starved machine still recalls: here
    the work runs (and fails on the model this home lacks) instead of being given up at once."""
    log = _slow_start(tmp_path, 3, "UserPromptSubmit",
                      b'{"session_id": "s", "prompt": "how do I cap vmmem on WSL?"}')  # fmt: skip
    graced = "\tno answer within 1.5 s: gave up, 0.5 s after its late start\n"  # a loaded machine
    # or, more loaded still, the grace's time judged too short for its own recall (its work)
    short = "the deadline left no time to recall in the hook's own process"
    worked = ("\tModelError: the embedding model is not installed", graced, short)
    assert any(it in log for it in worked), log
    assert "\tno answer within 1.5 s: gave up\n" not in log, log  # given up at once, no grace
    said = re.search(
        r"\tnotice: answered (\d+\.\d) s after it began \((\d+\.\d) s of it starting\), "
        r"past its 1.5 s deadline$",
        log,
        re.M,
    )
    assert said is not None, log
    assert float(said.group(1)) >= 3.0, log
    assert float(said.group(2)) >= 3.0, log  # the machine's lateness, told from the hook's
    assert float(said.group(1)) - float(said.group(2)) < GRACE + 5.0, log  # work: a loose bound


def test_a_session_end_slow_to_start_gets_no_grace_past_claude_code_s_end(tmp_path: Path) -> None:
    """Claude Code ends a SessionEnd hook ~1.5 s after it starts, whatever it is doing: its 1.4 s
    deadline is all of it. The grace given a late start (runner.GRACE) ran the work 0.5 s past
    that, where the agent killed it before it wrote its gave-up line: a silent failure. A late
    SessionEnd gives up at once, and says so."""
    log = _slow_start(tmp_path, 2, "SessionEnd", b'{"session_id": "s", "reason": "exit"}')
    assert "\tclaude-code SessionEnd\tno answer within 1.4 s: gave up\n" in log, log
