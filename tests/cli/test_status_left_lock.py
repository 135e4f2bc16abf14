"""`memidx status` and a git lock left behind (memidx.git.left_lock): status said nothing
(healthy, exit 0) while every git command of the person failed ("index.lock: File exists");
and the lock a memidx killed as it moved HEAD left was called a killed git's, with an `rm`
that, alone, left git's index before the commit HEAD moved to: the person's next commit
undid it. Now status names the lock, its kind and the one command that clears it."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest

from tests.cli.test_remember import hold_open
from tests.helpers import NotesRepo, clean_env
from tests.pending_memory import started
from tests.pending_runs import finishers

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="a lock no process holds is seen in /proc"
)
NOTE = "---\ntitle: Clock drifts\n---\n\nThe clock drifts after sleep; run hwclock -s again.\n"


@pytest.mark.parametrize(
    ("content", "kind", "said"),
    [
        (b"", "empty", "as it took it: it is empty"),
        (b"DIRC\x00\x00\x00\x02 half written", "git", "as it wrote git's index"),
    ],
)
def test_status_names_a_lock_a_killed_git_left_and_how_to_clear_it(
    tmp_path: Path, content: bytes, kind: str, said: str
) -> None:
    repo = started(tmp_path)
    lock = repo.root / ".git" / "index.lock"
    lock.write_bytes(content)
    run = repo.memidx("status")
    assert run.code == 1, run.out
    line = next(line for line in run.out.splitlines() if line.startswith("git lock:"))
    assert f"{lock} was left behind by a git process that was killed {said}" in line, line
    assert line.endswith(f"then remove it: rm {lock}"), line
    data = repo.memidx("status", "--json").json()
    assert data["healthy"] is False
    assert data["git_lock"] == {
        "path": str(lock), "kind": kind, "said": data["git_lock"]["said"], "clear": f"rm {lock}",
        "blocks": True,
    }  # fmt: skip


def test_status_says_nothing_of_a_lock_a_running_git_holds(tmp_path: Path) -> None:
    repo = started(tmp_path)
    holder = hold_open(repo.root / ".git" / "index.lock", 30)
    try:
        data = repo.memidx("status", "--json").json()
    finally:
        holder.kill()
        holder.wait()
    assert data["git_lock"] is None
    (repo.root / ".git" / "index.lock").unlink()


def _plumbing(repo: NotesRepo, *args: str, given: str = "", **env: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo.root, env=clean_env(**env), input=given,
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _killed_as_head_moved(repo: NotesRepo) -> str:
    """HEAD moved to a commit adding notes/clock-drifts.md, git's index and work tree not
    brought to it, and the index.lock memidx took for the move left, its token in it."""
    blob = _plumbing(repo, "hash-object", "-w", "--stdin", given=NOTE)
    index = str(repo.root / ".git" / "test-index")
    _plumbing(repo, "read-tree", "HEAD", GIT_INDEX_FILE=index)
    added = f"100644,{blob},notes/clock-drifts.md"
    _plumbing(repo, "update-index", "--add", "--cacheinfo", added, GIT_INDEX_FILE=index)
    tree = _plumbing(repo, "write-tree", GIT_INDEX_FILE=index)
    Path(index).unlink()
    commit = repo.git("commit-tree", "-p", "HEAD", "-m", "memidx remember: x", tree).strip()
    repo.git("update-ref", "HEAD", commit)
    (repo.root / ".git" / "index.lock").write_text(f"memidx 999999 {commit}")
    return commit


def test_a_killed_memidx_moves_lock_is_named_with_the_command_that_brings_the_index(
    tmp_path: Path,
) -> None:
    """Named as memidx's, not a killed git's; its command, run, leaves the clone clean: git's
    index and work tree at HEAD, the note there (an `rm` alone showed it deleted, staged)."""
    repo = started(tmp_path)
    commit = _killed_as_head_moved(repo)
    data = repo.memidx("status", "--json").json()
    lock = data["git_lock"]
    assert lock["kind"] == "memidx-move", lock
    assert f"killed as it moved HEAD to {commit[:12]}" in lock["said"]
    assert lock["clear"].startswith(f"rm {repo.root / '.git' / 'index.lock'} && git -C ")
    subprocess.run(["sh", "-c", lock["clear"]], cwd=tmp_path, env=clean_env(), check=True)
    assert repo.git("status", "--porcelain") == ""
    assert (repo.root / "notes" / "clock-drifts.md").read_text() == NOTE


@pytest.fixture
def no_finisher_left(tmp_path: Path) -> Iterator[None]:
    """The finisher a refused remember starts waits up to 10 minutes for the left lock: ended
    with the test (it outlived the suite)."""
    yield
    for pid in finishers(tmp_path / "memory"):  # the clone tests.pending_memory.started makes
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


@pytest.mark.usefixtures("no_finisher_left")
def test_remember_names_a_killed_memidx_moves_lock_as_memidx_s(tmp_path: Path) -> None:
    """remember said "left behind by a git process that was killed ... rm" of it."""
    repo = started(tmp_path)
    _killed_as_head_moved(repo)
    run = repo.memidx_process("remember", "--title", "Disk full", stdin="The disk was full.\n")
    assert run.code == 1 and "Traceback" not in run.err, run.err
    assert "left behind by a memidx killed as it moved HEAD" in run.err, run.err
    assert "git process that was killed" not in run.err
    assert " && git -C " in run.err


def _killed_as_a_forget_moved(repo: NotesRepo) -> str:
    """HEAD moved to a commit deleting notes/start.md, its file not yet deleted (the move's
    `restore --worktree` never ran), the index.lock memidx took for the move left."""
    index = str(repo.root / ".git" / "test-index")
    _plumbing(repo, "read-tree", "HEAD", GIT_INDEX_FILE=index)
    _plumbing(repo, "update-index", "--force-remove", "notes/start.md", GIT_INDEX_FILE=index)
    tree = _plumbing(repo, "write-tree", GIT_INDEX_FILE=index)
    Path(index).unlink()
    commit = repo.git("commit-tree", "-p", "HEAD", "-m", "memidx forget: x", tree).strip()
    repo.git("update-ref", "HEAD", commit)
    (repo.root / ".git" / "index.lock").write_text(f"memidx 999999 {commit}")
    return commit


def test_a_killed_forgets_lock_clears_with_the_forgotten_note_gone(tmp_path: Path) -> None:
    """The reset alone left the forgotten note in the work tree, untracked: the person's next
    `git add -A` committed it again. Its file, as the commit's parent has it, goes too."""
    repo = started(tmp_path)
    _killed_as_a_forget_moved(repo)
    lock = repo.memidx("status", "--json").json()["git_lock"]
    assert lock["kind"] == "memidx-move", lock
    subprocess.run(["sh", "-c", lock["clear"]], cwd=tmp_path, env=clean_env(), check=True)
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""
    assert not (repo.root / "notes" / "start.md").exists()


def test_a_killed_forgets_lock_keeps_the_note_edited_since(tmp_path: Path) -> None:
    """A file the person changed after the forget is theirs: never in the `rm`."""
    repo = started(tmp_path)
    _killed_as_a_forget_moved(repo)
    (repo.root / "notes" / "start.md").write_text("# Start\n\nMine now.\n")
    lock = repo.memidx("status", "--json").json()["git_lock"]
    assert "rm -f" not in lock["clear"], lock
    subprocess.run(["sh", "-c", lock["clear"]], cwd=tmp_path, env=clean_env(), check=True)
    assert (repo.root / "notes" / "start.md").read_text() == "# Start\n\nMine now.\n"


def test_sync_names_a_lock_left_behind(tmp_path: Path) -> None:
    """`memidx sync` said nothing of it (exit 0, no line) while every git command of the person
    failed: README says sync names it as remember and forget do."""
    repo = started(tmp_path)
    _killed_as_head_moved(repo)
    run = repo.memidx_process("sync")
    assert "Traceback" not in run.err, run.err
    lock = repo.root / ".git" / "index.lock"
    assert f"memidx: warning: {lock} was left behind by a memidx killed as it moved" in run.err
    assert f"then run rm {lock} && git -C " in run.err, run.err


def test_a_killed_merges_lock_clears_with_head_back_when_a_file_was_edited_since(
    tmp_path: Path,
) -> None:
    """A killed share's merge, then the person edited a note the merge changes: the printed
    read-tree refused, after the `rm`, and left HEAD at the merge over git's index before it
    (their next `git commit -a` undid the merge). Now HEAD goes back, as the move's own
    failure does; their edit is kept and nothing is staged."""
    repo = started(tmp_path)
    base = repo.git("rev-parse", "HEAD").strip()
    blob = _plumbing(repo, "hash-object", "-w", "--stdin", given="# Start\n\nTheirs.\n")
    index = str(repo.root / ".git" / "test-index")
    _plumbing(repo, "read-tree", "HEAD", GIT_INDEX_FILE=index)
    changed = f"100644,{blob},notes/start.md"
    _plumbing(repo, "update-index", "--cacheinfo", changed, GIT_INDEX_FILE=index)
    tree = _plumbing(repo, "write-tree", GIT_INDEX_FILE=index)
    Path(index).unlink()
    theirs = repo.git("commit-tree", "-p", base, "-m", "theirs", tree).strip()
    merge = repo.git("commit-tree", "-p", base, "-p", theirs, "-m", "memidx share", tree).strip()
    repo.git("update-ref", "HEAD", merge)
    (repo.root / ".git" / "index.lock").write_text(f"memidx 999999 {merge}")
    (repo.root / "notes" / "start.md").write_text("# Start\n\nMine, edited since.\n")
    lock = repo.memidx("status", "--json").json()["git_lock"]
    assert lock["kind"] == "memidx-move", lock
    subprocess.run(["sh", "-c", lock["clear"]], cwd=tmp_path, env=clean_env(), check=True)
    assert not (repo.root / ".git" / "index.lock").exists()
    assert repo.git("diff", "--cached", "--name-only", "HEAD") == ""
    assert (repo.root / "notes" / "start.md").read_text() == "# Start\n\nMine, edited since.\n"
