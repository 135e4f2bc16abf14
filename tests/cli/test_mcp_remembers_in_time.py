"""Five agents (or one agent's parallel tool calls) remember through one shared MCP server
while a person's git holds the clone. The server runs remembers one after another, and each
waited for that git itself, 10 s at most: behind a running rebase they answered after 10, 20
and 30 s (refused: "a rebase is under way"), behind a `git commit -a` in its editor after 10
to 15 s. Each answers within the server's answer time now, "written, pending", and every note
is committed once, when that git ends."""

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
from tests.cli.mcp_client import data, run, session, stop_shared
from tests.cli.test_late_merge import wait_for
from tests.helpers import NotesRepo, clean_env, started_memory

AGENTS = 5
HOLD_S = 12  # the person's git holds the clone this long
ANSWER_S = REMEMBER_WITHIN + 4.0  # the answer time, and room for five commits' work
Holding = Callable[[NotesRepo, Path], "subprocess.Popen[bytes]"]
BODY = "The {0} worker stopped after an update: its unit file lost the restart line again."


def _rebase(repo: NotesRepo, tmp_path: Path) -> subprocess.Popen[bytes]:
    """A person's rebase, running: its one pick's --exec sleeps HOLD_S seconds."""
    repo.note("second.md", "Second", "a second note so that there is a commit to pick again")
    repo.commit("second")
    picked = tmp_path / "picked"
    step = f"touch {picked}; sleep {HOLD_S}"
    argv = ["git", "rebase", "-q", "--force-rebase", "--exec", step, "HEAD~1"]
    person = subprocess.Popen(argv, cwd=repo.root, env=clean_env(), stderr=subprocess.PIPE)
    wait_for("the rebase to pick", picked.exists)
    return person


def _commit_in_editor(repo: NotesRepo, _: Path) -> subprocess.Popen[bytes]:
    """A person's `git commit -a`, its editor open HOLD_S seconds (git's index lock held)."""
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, edited by a person.\n")
    editor = f"sleep {HOLD_S}; echo 'a person edits start' >"
    argv = ["git", "commit", "-q", "-a"]
    person = subprocess.Popen(
        argv, cwd=repo.root, env=clean_env(GIT_EDITOR=editor), stderr=subprocess.PIPE
    )
    wait_for("git's index lock", (repo.root / ".git" / "index.lock").exists)
    return person


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.parametrize("holding", [_rebase, _commit_in_editor], ids=["rebase", "commit-a"])
def test_remembers_sent_at_once_answer_in_time_and_land_once(
    tmp_path: Path, holding: Holding
) -> None:
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")  # remember commits as the user
    repo.git("config", "user.email", "tests@memidx.invalid")

    async def body() -> list[tuple[float, dict[str, object]]]:
        async with session(repo.root) as client:
            data(await client.call_tool("status", {}))  # the server is up before the git
            person = holding(repo, tmp_path)
            try:
                began = time.monotonic()

                async def remember(n: int) -> tuple[float, dict[str, object]]:
                    note = {"title": f"Worker {n} stops after an update", "body": BODY.format(n)}
                    answer = data(await client.call_tool("remember", note))
                    return time.monotonic() - began, answer

                return await asyncio.gather(*(remember(n) for n in range(AGENTS)))
            finally:
                _, err = person.communicate(timeout=HOLD_S + 60)
                assert person.returncode == 0, err

    try:
        answers = run(body)
        for took, answer in answers:
            assert took < ANSWER_S, answers
            assert answer["committed"] is False and answer["commit"] is None, answers
            assert "not committed yet" in str(answer["pending"]), answers  # why it waits
        config = load_config(repo.root, env={})
        wait_for("the pending notes' commits", lambda: not any_pending(config), 60)
    finally:
        stop_shared(repo.root, 10)
    subjects = repo.git("log", "--format=%s").splitlines()
    landed = sorted(s for s in subjects if s.startswith("memidx remember: "))
    wanted = sorted(f"memidx remember: Worker {n} stops after an update" for n in range(AGENTS))
    assert landed == wanted  # each once: none lost, none committed twice
    refs = {str(answer["ref"]) for _, answer in answers}
    assert len(refs) == AGENTS
    tracked = set(repo.git("ls-files", "notes").split())
    assert refs <= tracked
    assert not [line for line in repo.git("status", "--short").splitlines() if "notes/w" in line]
