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
from tests.cli.test_killed_git_commit import _killed_commit  # pyright: ignore[reportPrivateUsage]
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

    # memidx's own, its memidx gone: removed by status's own look at what killed memidxs left
    # (killed_edit.settle_killed_edit); a git's is named, to be put back (below)
    assert data["git_asides"] == [str(git_made)] and not left.exists()
    assert "git aside:" in status.out and f"rm {left}" not in status.out, status.out
    assert status.code == 0, status.out  # nothing blocked: the lock itself went

    again = _killed_as_it_removed_a_lock(repo)  # and one no status looked at
    assert edit_on_copy(repo.root, git_dir, ["update-index", "--refresh", "-q"]) == (0, "")

    assert not again.exists()  # the next memidx that took git's index lock removed it
    assert git_made.read_bytes() == b"DIRC\x00\x00\x00\x02 what a git wrote"  # not memidx's
    assert live.exists()  # its memidx runs
    assert repo.memidx("status", "--json").json()["git_asides"] == [str(git_made)]


def test_a_killed_commit_s_lock_a_killed_memidx_left_aside_is_put_back_not_removed(
    tmp_path: Path,
) -> None:
    """A `git commit -a` killed once its commit moved HEAD leaves the index it commits in
    `.git/index.lock`; a memidx judging that lock (a killed memidx's token read, then git's
    lock taken anew) moved it aside and was killed before it put it back. Status said of it
    "nothing reads them, remove them: rm": removed, git's index stayed as before the commit,
    and the person's next commit undid it. Now it says to put it back, and then what clears it:
    the commit kept, nothing staged."""
    repo = started_memory(tmp_path)
    lock = _killed_commit(repo, "reference-transaction", "-a")
    aside = lock.with_name(f".index.lock.memidx-{_gone_pid()}")
    lock.rename(aside)  # as a memidx killed between its move aside and its put back left it

    line = next(row for row in repo.memidx("status").out.splitlines() if "git aside" in row)
    assert f"put it back: ln {aside} {lock} && rm {aside}" in line, line
    put_back = line.split("put it back: ", 1)[1].split(", and run", 1)[0]
    assert subprocess.run(["sh", "-c", put_back], env=clean_env(), check=False).returncode == 0
    data = repo.memidx("status", "--json").json()
    assert data["git_asides"] == [] and data["git_lock"]["kind"] == "git-commit", data
    done = subprocess.run(["sh", "-c", data["git_lock"]["clear"]], env=clean_env(), check=False)

    assert done.returncode == 0
    assert repo.git("status", "--porcelain", "--", "notes").splitlines() == []  # none undone


def test_status_json_tells_a_git_s_lock_left_aside_from_memidx_s_own(tmp_path: Path) -> None:
    """`--json`'s `git_asides` listed a killed commit's index lock left aside with memidx's own,
    nothing to tell them apart: an agent clearing them as the README says of `git_asides` (the
    `rm` that clears them) removed the index of that commit, and the next commit undid it.
    `git_written` names those to put back, not remove."""
    repo = started_memory(tmp_path)
    lock = _killed_commit(repo, "reference-transaction", "-a")
    aside = lock.with_name(f".index.lock.memidx-{_gone_pid()}")
    lock.rename(aside)

    data = repo.memidx("status", "--json").json()

    assert data["git_asides"] == [str(aside)], data
    assert data["git_written"] == [str(aside)], data
