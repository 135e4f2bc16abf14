"""`memidx status` while memidx moves HEAD to a commit of its own (a forget here): HEAD has
moved and git's index, which memidx holds locked (`.git/index.lock`, its token in it), is not
there yet. The uncommitted row read that instant as the person's changes: a forgotten note
`A ` "changed but not committed", a remembered one `D ` "deleted but still in HEAD ... `git
commit -a` would" forget it. Now status waits for the move (ms; 2 s at most) and reads the
row after it; a move still under way is said as such, never listed. The MCP server's look
never waits."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import move_script
from memidx.mcp import answers
from memidx.memory import status
from tests.helpers import NotesRepo, clean_env, started_memory

REF = "notes/ops/deploy.md"


@pytest.fixture
def mid_move(tmp_path: Path) -> Iterator[NotesRepo]:
    """HEAD moved to a commit without REF, git's index still holding it, and index.lock
    holding memidx's token for a live process (a shell letting it go)."""
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    env = clean_env(GIT_INDEX_FILE=str(tmp_path / "forget-index"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid"]

    def run(*args: str) -> str:
        done = subprocess.run([*git, *args], cwd=repo.root, env=env, capture_output=True,
                              text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    run("read-tree", "HEAD")
    run("rm", "-q", "--cached", "--", REF)
    new = run("commit-tree", run("write-tree"), "-p", "HEAD", "-m", f"memidx forget: {REF}")
    shell = subprocess.Popen(["sleep", "60"])
    (repo.root / ".git" / "index.lock").write_text(f"memidx {shell.pid} {new}")
    run("update-ref", "HEAD", new)
    try:
        yield repo
    finally:
        shell.kill()
        shell.wait()


def test_status_never_reads_memidx_s_move_as_the_person_s_change(mid_move: NotesRepo) -> None:
    said = mid_move.memidx("status", "--json")

    assert said.json()["moving_head"] is True
    assert said.json()["uncommitted"] == []
    row = mid_move.memidx("status").out
    assert "uncommitted: not read: memidx is moving HEAD" in row, row
    assert "changed but not committed" not in row and REF not in row


def _stretched(monkeypatch: pytest.MonkeyPatch) -> None:
    """status's wait for the move (MOVE_WAIT, 2 s) stretched to 30 s: a loaded machine's move
    may take past 2 s, a look that waits shows whole."""
    real = status.moving_head

    def stretched(root: Path, wait: float) -> bool:
        return real(root, wait * 30.0 / status.MOVE_WAIT)

    monkeypatch.setattr(status, "moving_head", stretched)


def test_status_reads_the_row_once_the_move_is_done(
    mid_move: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move ends once status has seen it under way (0.3 s after status began was not
    always while it looked, on a loaded machine), and within status's wait."""
    _stretched(monkeypatch)
    seen = threading.Event()
    real = move_script.held_by_memidx

    def held(lock: Path) -> bool:
        found = real(lock)
        if found:
            seen.set()
        return found

    monkeypatch.setattr(move_script, "held_by_memidx", held)

    def finish() -> None:  # as the move's shell: a copy of git's index brought to HEAD, the
        seen.wait(60)  # file gone, the copy renamed over the index, then the lock let go
        folder = mid_move.root / ".git"
        shutil.copy2(folder / "index", folder / "copy")
        env = clean_env(GIT_INDEX_FILE=str(folder / "copy"))
        subprocess.run(["git", "reset", "-q"], cwd=mid_move.root, env=env, check=True)
        (mid_move.root / REF).unlink()
        (folder / "copy").replace(folder / "index")
        (folder / "index.lock").unlink()

    done = threading.Thread(target=finish)
    done.start()
    said = mid_move.memidx("status", "--json")
    done.join()

    assert said.json()["moving_head"] is False
    assert said.json()["uncommitted"] == [], said.json()["uncommitted"]


def test_the_mcp_look_never_waits_for_the_move(
    mid_move: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look takes ms; a wait for the move takes it whole (it never ends here), 30 s: a
    look that waits shows on any load, where 1.5 s did not (the look itself took past it on a
    loaded machine)."""
    _stretched(monkeypatch)
    started = time.monotonic()
    data = answers.look(load_config(mid_move.root, env={}))
    assert time.monotonic() - started < 10.0
    assert data["moving_head"] is True and data["uncommitted"] == []
    assert (mid_move.root / ".git" / "index.lock").exists()


def test_status_says_a_change_of_one_entry_for_what_it_is(tmp_path: Path) -> None:
    """memidx's change of one entry of git's index (a take-out or a put-back, memidx.git.
    index_edit) holds index.lock with its token too, naming a blob, not a commit: status said
    "memidx is moving HEAD to a commit of its own (a remember, forget or share)" of it."""
    repo = started_memory(tmp_path)
    blob = repo.git("rev-parse", "HEAD:notes/start.md").strip()
    shell = subprocess.Popen(["sleep", "60"])
    try:
        (repo.root / ".git" / "index.lock").write_text(f"memidx {shell.pid} {blob}")
        said = repo.memidx("status")
    finally:
        shell.kill()
        shell.wait()

    row = said.out
    assert "uncommitted: not read: memidx is changing an entry of git's index" in row, row
    assert f"`kill {shell.pid}`" in row and "moving HEAD" not in row, row
