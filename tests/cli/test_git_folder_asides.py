"""A lock memidx judges before it removes it (memidx/git/judged_unlink.py) is moved aside first,
`.git/.index.lock.memidx-<pid>`; a memidx killed between that rename and its unlink left it there
for good: nothing looked in the git folder. The next memidx that takes git's index lock removes
it once that memidx is gone, and `memidx status` names any left (one holding what a git wrote
is never removed: it is not memidx's)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.git.index_copy import edit_on_copy
from tests.helpers import NotesRepo, clean_env, started_memory

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").is_file(), reason="Linux /proc tells which pid is gone"
)
# a memidx that removes the index.lock a killed memidx left (`memidx <pid> copy`) and is
# killed with SIGKILL between its rename aside and its unlink
KILLED = """
import os, signal, sys
from pathlib import Path
import memidx.git.lock_holders as lock_holders
lock_holders.left_behind = lambda lock, root: True
unlink = Path.unlink
def killed(self, *args, **kwargs):
    if self.name.startswith(".index.lock.memidx-"):
        os.kill(os.getpid(), signal.SIGKILL)
    unlink(self, *args, **kwargs)
Path.unlink = killed
from memidx.git.index_copy import killed_swap_let_go
root = Path(sys.argv[1])
killed_swap_let_go(root, root / ".git")
"""


def _gone_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _killed_as_it_removed_a_lock(repo: NotesRepo) -> Path:
    """What a memidx killed between its move aside of a dead memidx's index.lock and its
    unlink left in the git folder."""
    git_dir = repo.root / ".git"
    (git_dir / "index.lock").write_text(f"memidx {_gone_pid()} copy")
    done = subprocess.Popen([sys.executable, "-c", KILLED, str(repo.root)], env=clean_env())
    assert done.wait(timeout=60) == -9
    left = git_dir / f".index.lock.memidx-{done.pid}"
    assert left.is_file() and not (git_dir / "index.lock").exists()
    return left


def test_a_lock_a_killed_memidx_left_aside_is_named_then_swept(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    git_dir = repo.root / ".git"
    left = _killed_as_it_removed_a_lock(repo)
    git_made = git_dir / f".index.lock.memidx-{_gone_pid()}"  # a git's lock, judged not memidx's
    git_made.write_bytes(b"DIRC\x00\x00\x00\x02 what a git wrote")
    live = git_dir / f".index.lock.memidx-{os.getpid()}"  # this memidx's, judging one now
    live.write_bytes(b"memidx 1 copy")

    data = repo.memidx("status", "--json").json()
    status = repo.memidx("status")

    assert data["git_asides"] == sorted([str(left), str(git_made)])
    line = next(line for line in status.out.splitlines() if line.startswith("git aside:"))
    assert line.endswith(f"rm {' '.join(data['git_asides'])}"), line
    assert status.code == 0, status.out  # nothing blocked: the lock itself went

    assert edit_on_copy(repo.root, git_dir, ["update-index", "--refresh", "-q"]) == (0, "")

    assert not left.exists()  # the next memidx that took git's index lock removed it
    assert git_made.read_bytes() == b"DIRC\x00\x00\x00\x02 what a git wrote"  # not memidx's
    assert live.exists()  # its memidx runs
    assert repo.memidx("status", "--json").json()["git_asides"] == [str(git_made)]
