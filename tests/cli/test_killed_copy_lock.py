"""memidx renames its copy of git's index over the index under `.git/index.lock`, `memidx <pid>
copy` in it (memidx/git/index_copy.py): the stop signals are held there, but `kill -9` and a
power cut are not, and the lock was left for good (every git command of the person refused,
"index.lock: File exists"; only a take-out's lock was let go). The next `status`, `sync` or
`remember` now removes it when that memidx is provably gone: no such pid, or one started after
the lock was made (the pid given again); a lock whose memidx runs stays."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.process_start import owner_gone
from tests.cli.test_take_out_killed import _until_left_behind  # pyright: ignore[reportPrivateUsage]
from tests.helpers import NotesRepo, clean_env, started_memory

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").is_file(), reason="a lock no process holds is seen in /proc"
)
REF = "notes/disk-full.md"
# a memidx that edits git's index on a copy (edit_on_copy) and is killed with SIGKILL at `argv[2]`:
# `replace`, the copy not yet renamed over the index, or `let_go`, renamed, the lock still held
KILLED = """
import os, signal, sys
from pathlib import Path
import memidx.git.move_script as move_script
root, at = Path(sys.argv[1]), sys.argv[2]
def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
if at == "replace":
    Path.replace = killed
else:
    move_script.let_go = killed
from memidx.git.index_copy import edit_on_copy
edit_on_copy(root, root / ".git", ["update-index", "--add", "--", sys.argv[3]])
"""


def _killed_in_the_rename(repo: NotesRepo, at: str) -> int:
    """Run a memidx that is killed in its rename of a copy over git's index: its pid."""
    repo.write(REF, "---\ntitle: Disk full\n---\n\nThe disk was full of old logs.\n")
    argv = [sys.executable, "-c", KILLED, str(repo.root), at, REF]
    done = subprocess.Popen(argv, cwd=repo.root, env=clean_env())
    assert done.wait(timeout=60) == -9
    lock = repo.root / ".git" / "index.lock"
    assert lock.read_text() == f"memidx {done.pid} copy"
    assert list((repo.root / ".git").glob(f"memidx-copied-index-{done.pid}*"))
    _until_left_behind(lock, repo.root)
    return done.pid


@pytest.mark.parametrize("at", ["replace", "let_go"])
def test_status_removes_the_lock_a_memidx_killed_in_its_rename_left(
    tmp_path: Path, at: str
) -> None:
    repo = started_memory(tmp_path)
    pid = _killed_in_the_rename(repo, at)
    lock = repo.root / ".git" / "index.lock"

    status = repo.memidx("status")

    said = [line for line in status.err.splitlines() if "index.lock" in line]
    assert said == [
        f"memidx: removed {lock}, which a memidx killed as it renamed its copy of git's index "
        f"over it left (no process holds it; that memidx, pid {pid}, is gone; git's index is "
        "whole, the copy or as it was)"
    ], status.err
    assert not lock.exists() and not list((repo.root / ".git").glob("memidx-copied-index*"))
    assert "git lock:" not in status.out
    staged = repo.git("ls-files", "--", REF).strip()
    assert staged == (REF if at == "let_go" else "")  # renamed over the index, or not yet
    repo.git("add", "--", REF)  # the person's git works again


@contextmanager
def _running(pid: int | None = None) -> Generator[subprocess.Popen[bytes]]:
    """A process that runs for the test, given `pid` when the system allows it (Linux, root:
    /proc/sys/kernel/ns_last_pid), else any."""
    if pid is not None:
        Path("/proc/sys/kernel/ns_last_pid").write_text(str(pid - 1))
    live = subprocess.Popen(["sleep", "60"])
    try:
        yield live
    finally:
        live.kill()
        live.wait(timeout=10)


def test_a_lock_whose_memidx_runs_stays(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    lock = repo.root / ".git" / "index.lock"
    with _running() as live:
        lock.write_text(f"memidx {live.pid} copy")  # that memidx, alive, renames its copy

        status = repo.memidx("status")

        assert lock.read_text() == f"memidx {live.pid} copy", status.err
        assert f"removed {lock}" not in status.err
    lock.unlink()


def test_a_killed_memidx_lock_whose_pid_another_process_has_now_goes(tmp_path: Path) -> None:
    if os.geteuid() != 0 or not os.access("/proc/sys/kernel/ns_last_pid", os.W_OK):
        pytest.skip("a test chooses a new process's pid only as root (ns_last_pid)")
    repo = started_memory(tmp_path)
    pid = _killed_in_the_rename(repo, "replace")
    lock = repo.root / ".git" / "index.lock"
    time.sleep(1.5)  # past process_start.SLACK: the new process starts after the lock
    for _ in range(20):  # another process of the machine may take that pid first
        with _running(pid) as live:
            if live.pid != pid:
                continue
            assert not owner_gone(pid, time.time() - 0.5)  # alive, started just now

            status = repo.memidx("status")

            assert f"removed {lock}" in status.err, status.err
            assert not lock.exists()
            return
    pytest.skip(f"pid {pid} was taken by another process each time")
