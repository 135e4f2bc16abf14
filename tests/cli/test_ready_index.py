"""The copy of git's index memidx brings to its new commit before the move (memidx.git.index_swap
.prepare): run on this clone's repository whatever a hook's git set in the caller's environment,
and not refused for good by a lock a killed git left on it (memidx.git.ready_lock)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.index_refresh import reset_words
from memidx.git.index_swap import READY, prepare
from memidx.git.ready_lock import LOCK, WRITER
from tests.helpers import NotesRepo, clean_env

NEW = "notes/new.md"


def _a_commit_to_bring(tmp_path: Path) -> tuple[NotesRepo, str, list[str]]:
    """A memory whose HEAD and index lack NEW, a commit that holds it, and the words of the
    move's follow (a reset of NEW alone)."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("old.md", "Old", "an older note")
    repo.commit("old")
    repo.note("new.md", "New", "the note memidx committed")
    new = repo.commit("new")
    repo.git("reset", "-q", "HEAD~1")  # HEAD and the index without it again; its file stays
    (repo.root / NEW).unlink()
    return repo, new, list(reset_words(new, [f":(literal){NEW}"]))


def _ready_holds(repo: NotesRepo) -> str:
    env = clean_env(GIT_INDEX_FILE=str(repo.root / ".git" / READY))
    done = subprocess.run(["git", "ls-files", "--", NEW], cwd=repo.root, env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout


def test_a_hook_s_git_variables_do_not_send_the_copy_to_another_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memidx run from a person's git hook of another repository: GIT_DIR, GIT_WORK_TREE and
    GIT_INDEX_FILE name that one (prepare ran its reset and cat-file there, found no commit
    and gave the fast way up at each move)."""
    repo, new, args = _a_commit_to_bring(tmp_path)
    other = NotesRepo(tmp_path / "other")
    monkeypatch.setenv("GIT_DIR", str(other.root / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other.root))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other.root / ".git" / "index"))

    prepared = prepare(repo.root, repo.root / ".git", args, new, [NEW])

    assert prepared is not None
    assert dict(prepared[1]) == {NEW: repo.git("show", f"{new}:{NEW}").encode()}
    assert _ready_holds(repo) == f"{NEW}\n"
    assert not (other.root / ".git" / "index").exists()  # the other repository untouched


def _killed_git_gone(git_dir: Path) -> None:
    """Wait (10 s at most) until the git killed with memidx has ended: `kill -9 $PPID $$` ends
    memidx first, and under load the test's next prepare ran while that git still held WRITER."""
    import fcntl
    import time

    try:
        held = os.open(git_dir / WRITER, os.O_WRONLY)
    except FileNotFoundError:
        return
    try:
        for _ in range(1000):
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                time.sleep(0.01)
    finally:
        os.close(held)


def _shim_git(tmp_path: Path, on_reset: str) -> str:
    """A PATH whose `git`, run as a reset on READY, makes READY's lock, then runs `on_reset`
    (shell); every other git the real one."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "git").write_text(
        "#!/bin/sh\n"
        f'case "$GIT_INDEX_FILE:$1" in *{READY}:reset) : >"$GIT_INDEX_FILE.lock"; '
        f'{on_reset};; esac\nexec "{real}" "$@"\n'
    )
    (folder / "git").chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def _killed_at_its_lock(tmp_path: Path) -> str:
    """A git killed (SIGKILL) with the memidx that started it before it renames READY's lock,
    once memidx wrote its pid beside the copy (as it does once git started)."""
    return _shim_git(
        tmp_path,
        'n=0; while [ "$(cat "$GIT_INDEX_FILE.git")" != $$ ] && [ $n -lt 1000 ]; do '
        "sleep 0.01; n=$((n + 1)); done; kill -9 $PPID $$",
    )


@pytest.mark.skipif(SHELL is None, reason="the killed git is a POSIX shell script")
def test_a_lock_a_killed_prepare_left_on_the_copy_goes_at_the_next_prepare(
    tmp_path: Path,
) -> None:
    repo, new, args = _a_commit_to_bring(tmp_path)
    git_dir = repo.root / ".git"
    code = (
        "import sys; from pathlib import Path; from memidx.git.index_swap import prepare; "
        "prepare(Path(sys.argv[1]), Path(sys.argv[1], '.git'), sys.argv[3:], sys.argv[2], [])"
    )
    argv = [sys.executable, "-c", code, str(repo.root), new, *args]
    env = clean_env(PATH=_killed_at_its_lock(tmp_path))
    killed = subprocess.run(argv, env=env, capture_output=True, check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert (git_dir / LOCK).exists()  # left, as a git killed there leaves it
    _killed_git_gone(git_dir)

    prepared = prepare(repo.root, git_dir, args, new, [])

    assert prepared is not None  # without: "memidx-ready-index.lock: File exists", each move
    assert not (git_dir / LOCK).exists()
    assert _ready_holds(repo) == f"{NEW}\n"


@pytest.mark.skipif(SHELL is None, reason="flock: POSIX")
@pytest.mark.parametrize("writer", ["alive", "unknown"])
def test_a_lock_on_the_copy_whose_git_may_still_run_stays(tmp_path: Path, writer: str) -> None:
    """Not provably gone: a writer that runs (a process that inherited WRITER's lock, as the
    git memidx starts does, its pid in it), or none named (a lock an older memidx's git made,
    with no WRITER) that a process still has open (its git writing it)."""
    import fcntl

    repo, new, args = _a_commit_to_bring(tmp_path)
    git_dir = repo.root / ".git"
    with contextlib.ExitStack() as stack:
        if writer == "alive":
            held = os.open(git_dir / WRITER, os.O_WRONLY | os.O_CREAT, 0o644)
            fcntl.flock(held, fcntl.LOCK_EX)
            runs = subprocess.Popen(["sleep", "60"], pass_fds=(held,))
            stack.callback(runs.wait)
            stack.callback(runs.kill)
            os.write(held, str(runs.pid).encode())
            os.close(held)  # held by the running child alone
        (git_dir / LOCK).write_bytes(b"DIRC")
        if writer == "unknown":
            held = os.open(git_dir / LOCK, os.O_WRONLY)
            runs = subprocess.Popen(["sleep", "60"], pass_fds=(held,))
            stack.callback(runs.wait)
            stack.callback(runs.kill)
            os.close(held)  # open in the running child alone

        assert prepare(repo.root, git_dir, args, new, []) is None

        assert (git_dir / LOCK).read_bytes() == b"DIRC"
        assert (git_dir / WRITER).exists() == (writer == "alive")  # kept: it judges the lock


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="judged by /proc")
def test_a_lock_an_older_memidx_left_with_no_writer_goes_and_status_names_it(
    tmp_path: Path,
) -> None:
    """A lock on the copy with no WRITER beside it (an older memidx's git, killed) stayed for
    good, each move after it on the slow path, and `memidx status` named nothing. Named by
    status (kind `memidx-ready`, failing no git of the person's: exit 0), it goes at the next
    prepare once no process holds it and no git runs in the clone, as git's own locks are
    judged."""
    import json

    repo, new, args = _a_commit_to_bring(tmp_path)
    git_dir = repo.root / ".git"
    unlocked = repo.memidx("status", "--json")
    (git_dir / LOCK).write_bytes(b"DIRC")

    status = repo.memidx("status", "--json")

    said = json.loads(status.out)["git_lock"]
    assert said is not None, status.out
    assert (said["path"], said["kind"], said["blocks"]) == (
        str(git_dir / LOCK),
        "memidx-ready",
        False,
    )
    assert said["clear"] == f"rm {git_dir / LOCK}"
    assert json.loads(unlocked.out)["git_lock"] is None
    healthy = (json.loads(status.out)["healthy"], status.code)
    assert healthy == (json.loads(unlocked.out)["healthy"], unlocked.code)  # fails no git

    assert prepare(repo.root, git_dir, args, new, []) is not None
    assert not (git_dir / LOCK).exists()


def test_the_lock_is_judged_by_the_writer_s_flock_not_the_pid_in_it(tmp_path: Path) -> None:
    """The lock is judged by WRITER's flock, not the pid in it (a pid given again since, or
    one memidx had not written yet when it was killed)."""
    repo, new, args = _a_commit_to_bring(tmp_path)
    git_dir = repo.root / ".git"
    (git_dir / WRITER).write_text(str(os.getpid()))  # a live pid, holding no lock
    (git_dir / LOCK).write_bytes(b"DIRC")

    assert prepare(repo.root, git_dir, args, new, []) is not None
    assert not (git_dir / LOCK).exists()


def _killed_at_once(tmp_path: Path) -> str:
    """A git killed (SIGKILL) with the memidx that started it at once, whatever memidx wrote
    by then."""
    return _shim_git(tmp_path, "kill -9 $PPID $$")


@pytest.mark.skipif(SHELL is None, reason="the killed git is a POSIX shell script")
def test_a_lock_left_by_a_git_killed_before_memidx_wrote_its_pid_goes_too(
    tmp_path: Path,
) -> None:
    """memidx wrote the git's pid once Popen returned: killed in that instant (here: slow to
    write it, as on a loaded machine), it left a lock no writer was known for, which stayed
    for good, every move after it done under git's index.lock. The git now holds WRITER's
    lock from its start (taken by memidx before it, inherited)."""
    repo, new, args = _a_commit_to_bring(tmp_path)
    git_dir = repo.root / ".git"
    code = (
        "import sys, time, pathlib; from pathlib import Path\n"
        "write = pathlib.Path.write_text\n"
        "def slow(self, *a, **k):\n"
        "    time.sleep(5)\n"
        "    return write(self, *a, **k)\n"
        "pathlib.Path.write_text = slow\n"
        "from memidx.git.index_swap import prepare\n"
        "prepare(Path(sys.argv[1]), Path(sys.argv[1], '.git'), sys.argv[3:], sys.argv[2], [])\n"
    )
    argv = [sys.executable, "-c", code, str(repo.root), new, *args]
    killed = subprocess.run(argv, env=clean_env(PATH=_killed_at_once(tmp_path)),
                            capture_output=True, check=False)  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert (git_dir / LOCK).exists()  # left, as a git killed there leaves it
    _killed_git_gone(git_dir)

    prepared = prepare(repo.root, git_dir, args, new, [])

    assert prepared is not None  # was: None at this move and every one after it
    assert not (git_dir / LOCK).exists()
