"""A `git pull` under a running `memidx mcp`: a clone serves its memory (the real executable
over stdio, the MCP SDK's client), another clone pushes a new note and deletes one, this clone
pulls (its post-merge hook syncs the index) and the server's next search finds the new note
and no longer the deleted one, without a restart."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.cli.mcp_client import data, run, session
from tests.helpers import NotesRepo
from tests.machines import clone, hook_env, make_template

NEW = {"query": "gradle daemon heap", "mode": "bm25"}
OLD = {"query": "search before you start a task", "mode": "bm25"}


def test_a_pull_under_a_running_server_is_followed_without_a_restart(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    here = clone(remote, tmp_path / "a", env)
    # the other machine's commit without memidx's hooks: they cost this test 1.5 s, and what
    # is tested is this clone's pull
    subprocess.run(["git", "clone", "-q", str(remote), str(tmp_path / "b")], env=env, check=True)
    there = NotesRepo(tmp_path / "b", init=False)
    there.note("gradle.md", "Gradle daemon runs out of heap", "Set org.gradle.jvmargs higher.")
    (there.root / "notes" / "welcome.md").unlink()
    there.commit("a note in, the welcome out")
    there.git("push", "-q", "origin", "main")

    async def body() -> tuple[list[str], list[str], list[str], list[str]]:
        async with session(here.root, "--own") as client:
            before = [data(await client.call_tool("search", q))["hits"] for q in (NEW, OLD)]
            here.git("pull", "-q", "origin", "main")
            after = [data(await client.call_tool("search", q))["hits"] for q in (NEW, OLD)]
        new_before, old_before, new_after, old_after = (
            [h["ref"] for h in hits] for hits in (*before, *after)
        )
        return new_before, old_before, new_after, old_after

    new_before, old_before, new_after, old_after = run(body)
    assert (new_before, old_before) == ([], ["notes/welcome.md"])
    assert (new_after, old_after) == (["notes/gradle.md"], [])
