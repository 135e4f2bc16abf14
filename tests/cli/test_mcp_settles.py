"""The MCP server's `status` and `remember` tools (memidx/mcp/answers.py) ran neither what the
command line's `status` and `remember` put right first: the index.lock a memidx killed while it
changed git's index left (every git of the person failed until it went; the tool's remember
was refused for it), nor the pending note HEAD holds (the tool's status listed it "not
committed yet"). Now they do as the command line does."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.mcp import answers
from memidx.memory.pending_branch import head_branch
from memidx.memory.pending_notes import keep, pending
from tests.cli.test_take_out_killed import REF, TEXT, asides, killed_take_out
from tests.pending_memory import started


def test_the_status_tool_lets_a_killed_take_outs_lock_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = killed_take_out(tmp_path, monkeypatch)
    lock = repo.root / ".git" / "index.lock"
    data = answers.status(load_config(repo.root, env={}))
    assert not lock.exists() and asides(repo) == [] and data["git_lock"] is None
    assert repo.git("show", f"main:{REF}") == TEXT


def test_the_remember_tool_lets_a_killed_take_outs_lock_go_and_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = killed_take_out(tmp_path, monkeypatch)
    said: list[str] = []
    config = load_config(repo.root, env={})
    done = answers.remember(config, "Swap full", "Swap was full of old pages.\n", say=said.append)
    assert done["committed"] is True, (done, said)
    assert "notes/swap-full.md" in repo.git("ls-files", "notes")


def test_the_status_tool_settles_a_pending_note_head_holds(tmp_path: Path) -> None:
    repo = started(tmp_path)
    note = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of logs.\n"
    repo.write("notes/disk-full.md", note)
    repo.commit("the note's commit, landed")
    config = load_config(repo.root, env={})
    branch = head_branch(config)
    assert branch is not None
    keep(config, "notes/disk-full.md", "Disk full", note, branch)
    data = answers.status(config)
    assert pending(config) == [] and data["pending_notes"] == []


def test_the_status_tool_says_what_it_put_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = killed_take_out(tmp_path, monkeypatch)
    said: list[str] = []
    answers.status(load_config(repo.root, env={}), said.append)
    assert any(f"removed {repo.root / '.git' / 'index.lock'}" in line for line in said), said
