"""An agent's turn filed through the MCP server while a `remember` of the same server waits for
a person's running rebase (up to 10 s, memidx/git/branch.py): the server's one write thread ran
both, so the `file_turn` sent 0.5 s after the remember answered after 10.29 s, past an agent
hook's deadline, and every other agent of a shared server waited with it. Filing appends to the
log and never waits for a rebase: it has its own thread. (The remember itself now answers
"written, pending" by the server's answer time, and its note is committed once the rebase
ends: tests/cli/test_mcp_remembers_in_time.py.)"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.mcp.server import REMEMBER_WITHIN
from memidx.memory.pending_mark import any_pending
from memidx.memory.pending_notes import LOCK
from memidx.portable import file_lock
from tests.cli.mcp_client import data, run, session
from tests.cli.test_late_merge import wait_for
from tests.helpers import clean_env, started_memory

BODY = "The proxy dropped long requests, so uploads over a minute failed for everyone.\n"
REBASE_S = 8  # the person's rebase runs this long once picked; remember answers before


def _held(lock: Path) -> bool:
    """Whether a process holds `lock` (taken a moment to look, when free)."""
    with file_lock(lock, wait=False) as free:
        return not free


async def _until(what: str, done: Callable[[], bool], seconds: float = 20.0) -> None:
    """wait_for on the event loop: the calls it runs meanwhile are sent and answered."""
    until = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < until, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_turn_is_filed_while_a_remember_waits_for_a_rebase(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")  # remember commits as the user
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("second.md", "Second", "a second note so that there is a commit to pick again")
    repo.commit("second")
    picked = tmp_path / "picked"
    step = f"touch {picked}; sleep {REBASE_S}"
    argv = ["git", "rebase", "-q", "--force-rebase", "--exec", step, "HEAD~1"]

    lock = load_config(repo.root, env={}).state_dir / LOCK  # held by the remember under way

    async def body() -> tuple[float, bool, int | None]:
        async with session(repo.root) as client:
            data(await client.call_tool("status", {}))  # the server is up before the rebase
            person = subprocess.Popen(argv, cwd=repo.root, env=clean_env(), stderr=subprocess.PIPE)
            try:
                wait_for("the rebase to pick", picked.exists)
                started = time.monotonic()
                note = {"title": "Proxy timeout", "body": BODY}
                remembering = asyncio.ensure_future(client.call_tool("remember", note))
                rebasing: list[int | None] = []  # the rebase's exit code at the remember's answer
                remembering.add_done_callback(lambda _: rebasing.append(person.poll()))
                # the turn is sent once the remember is under way (0.5 s was not always enough
                # on a loaded machine: the turn went first, and the test could not fail)
                await _until("the remember to hold remember.lock", lambda: _held(lock))
                turn = {"user": "why do uploads fail", "assistant": "the proxy", "session": "s1"}
                filed = data(await client.call_tool("file_turn", turn))
                # behind the remember, it answered after the remember let its lock go
                ahead = _held(lock)
                assert filed["schema"] == "memidx.filed/1" and not filed["duplicate"]
                remembered = data(await remembering)
                assert remembered["committed"] is False, remembered  # pending: rebase runs
                return time.monotonic() - started, ahead, rebasing[0]
            finally:
                _, err = person.communicate(timeout=60)
                assert person.returncode == 0, err

    remember_took, ahead, rebase_ended = run(body)
    assert remember_took > REMEMBER_WITHIN - 1, remember_took  # it waited its answer time,
    assert rebase_ended is None  # and answered with the rebase still running (REBASE_S)
    assert ahead  # the turn did not wait behind it (answered while the remember was under way)
    config = load_config(repo.root, env={})
    wait_for("the pending note's commit", lambda: not any_pending(config), 60)
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects == ["memidx remember: Proxy timeout", "second", "start"]
