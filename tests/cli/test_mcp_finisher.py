"""The finisher a `remember` through the MCP server starts (a note left pending behind a busy
git) is the server's child: once it ends, the server's next tool call reaps it. It stayed a
zombie until the next remember started another (seen: state Z, parent the server)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_mark import any_pending
from memidx.memory.pending_notes import keep
from tests.cli.mcp_client import data, run, session
from tests.helpers import NotesRepo

OLDER = "---\ntitle: Older note\ncreated: '2026-12-05'\n---\n\nAn older note in plain words.\n"


@pytest.fixture
def memory(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")  # remember commits as the user
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("wsl.md", "WSL memory grows", "The vmmem process grows until .wslconfig caps it.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def _children(parent: int) -> list[tuple[int, str]]:
    """(pid, state) of the processes whose parent is `parent` (Linux /proc)."""
    found: list[tuple[int, str]] = []
    for pid_dir in Path("/proc").glob("[0-9]*"):
        try:
            fields = (pid_dir / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            found.append((int(pid_dir.name), fields[0]))
    return found


def _server(root: Path) -> int:
    """The pid of the `memidx -C root mcp --own` server this test started."""
    for pid_dir in Path("/proc").glob("[0-9]*"):
        try:
            argv = (pid_dir / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and str(root).encode() in argv and b"--own" in argv:
            return int(pid_dir.name)
    raise AssertionError("no server found")


def test_a_finisher_started_through_the_server_is_reaped(memory: NotesRepo) -> None:
    root = memory.root
    config = load_config(root, env={})
    memory.write("notes/older-note.md", OLDER)  # pending already: the remember waits 1 s
    keep(config, "notes/older-note.md", "Older note", OLDER, "refs/heads/main")
    lock = root / ".git" / "index.lock"
    script = f"import time; f = open({str(lock)!r}, 'w'); print('held', flush=True); time.sleep(60)"
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    seen: list[list[tuple[int, str]]] = []

    async def body() -> None:
        async with session(root, "--own") as writer:
            note = {"title": "Gradle heap", "body": "The Gradle daemon needs two gigabytes."}
            done = data(await writer.call_tool("remember", note))
            assert done["committed"] is False, done
            holder.kill()
            holder.wait()
            lock.unlink()
            server = _server(root)
            for _ in range(200):  # the finisher commits both notes, then ends
                if not any_pending(config) and all(s == "Z" for _, s in _children(server)):
                    break
                time.sleep(0.1)
            await writer.call_tool("status", {})
            seen.append(_children(server))

    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        run(body)
    finally:
        holder.kill()
        holder.wait()
        lock.unlink(missing_ok=True)
    assert not any_pending(config)
    assert seen == [[]], f"the server's children after the finisher ended: {seen}"
