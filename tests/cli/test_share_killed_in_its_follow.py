"""share's merge moved HEAD on the slow path (no copy made before the move stood for git's index)
and memidx, not the move's shell, followed it (memidx.git.move_follow): its `git read-tree -m -u`
wrote the merge's files into the work tree. A memidx killed (`kill -9`) after that left the
shell to do it again from git's index as it was: the merge's new files were in its way
("untracked working tree file would be overwritten"), so it failed and moved HEAD back, over a
work tree half merged (`M notes/seed.md`, `?? notes/a.md`, for the person's next `git add -A`).
share's follow is the shell's alone, done once whatever happens to memidx."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.cli.test_share_write_fails import _behind_by_three_notes  # pyright: ignore[reportPrivateUsage]
from tests.helpers import NotesRepo, clean_env
from tests.move_shell import SWAP_NOTED, shell_ended

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)
# a share whose copy made before the move never stands (index_swap.usable says no), killed at
# `step` (argv[2]) of memidx's own follow, should it do one
KILLED = """
import os, signal, sys
from pathlib import Path
from memidx.git import index_swap, move_trace
root, step = Path(sys.argv[1]), sys.argv[2]
index_swap.usable = lambda *args, **kwargs: False
def mark(at):
    if at == step:
        os.kill(os.getpid(), signal.SIGKILL)
move_trace.mark = mark
from memidx.cli.main import main
main(["-C", str(root), "share"])
"""


def _merged_whole(two: NotesRepo) -> None:
    """The merge, whole, in HEAD and the work tree."""
    for name in ("a.md", "b.md", "seed.md"):
        assert (two.root / "notes" / name).read_bytes() == two.git(
            "show", f"HEAD:notes/{name}"
        ).encode()


@pytest.mark.parametrize("step", ["ran", "judged", "written"])
def test_share_killed_as_its_merge_is_followed_leaves_no_half_merged_work_tree(
    tmp_path: Path, step: str
) -> None:
    two = _behind_by_three_notes(tmp_path)
    theirs = two.git("rev-parse", "origin/main").strip()

    argv = [sys.executable, "-c", KILLED, str(two.root), step]
    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, check=False)

    assert done.returncode in (0, -9), done.stderr.decode()
    shell_ended(two.root)
    assert two.git("status", "--porcelain", "-uall") == ""
    two.git("merge-base", "--is-ancestor", theirs, "HEAD")  # merged: fails otherwise
    _merged_whole(two)


# a share whose copy made before the move stands (memidx.git.index_swap.swap), killed once it
# set aside the files the merge deletes (`aside`) or placed the `n`th file the merge writes
KILLED_IN_ITS_SWAP = f"""
import os, signal, sys
from pathlib import Path
from memidx.git import index_swap, move_trace
root, step = Path(sys.argv[1]), sys.argv[2]
placed = index_swap._place
def place(staged, path):
    placed(staged, path)
    place.n += 1
    if str(place.n) == step:
        os.kill(os.getpid(), signal.SIGKILL)
place.n = 0
index_swap._place = place
{SWAP_NOTED}
def mark(at):
    if at == step:
        os.kill(os.getpid(), signal.SIGKILL)
move_trace.mark = mark
from memidx.cli.main import main
main(["-C", str(root), "share"])
sys.exit(0 if swap.ran else 3)
"""


@pytest.mark.parametrize("step", ["aside", "1", "2"])
def test_share_killed_in_its_swap_leaves_no_half_merged_work_tree(
    tmp_path: Path, step: str
) -> None:
    """Killed as its fast path wrote the merge's files, the shell's `read-tree -m -u` ran from
    git's index as it was, found them in its way and moved HEAD back (`merge (undone)`) over
    ` D notes/seed.md`, `?? notes/a.md`: the index goes before the files written now (after
    the files deleted: tests/cli/test_move_killed_leftovers.py), and the shell finishes."""
    two = _behind_by_three_notes(tmp_path)
    theirs = two.git("rev-parse", "origin/main").strip()

    argv = [sys.executable, "-c", KILLED_IN_ITS_SWAP, str(two.root), step]
    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, check=False)

    assert done.returncode == -9, done.stderr.decode()  # killed in its swap, not before
    shell_ended(two.root)
    assert two.git("status", "--porcelain", "-uall") == ""
    two.git("merge-base", "--is-ancestor", theirs, "HEAD")  # merged: fails otherwise
    _merged_whole(two)


# a share on the slow path killed half way through its copy of git's index for the move's
# shell (memidx.git.move_script.copy_index)
KILLED_IN_ITS_COPY = """
import os, shutil, signal, sys
from pathlib import Path
from memidx.git import index_swap
root = Path(sys.argv[1])
index_swap.usable = lambda *args, **kwargs: False
copied = shutil.copy2
def copy2(src, dst, *args, **kwargs):
    if "memidx-follow-index" in str(dst):
        data = Path(src).read_bytes()
        Path(dst).write_bytes(data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    return copied(src, dst, *args, **kwargs)
shutil.copy2 = copy2
from memidx.cli.main import main
main(["-C", str(root), "share"])
sys.exit(3)
"""


def test_share_killed_in_its_copy_of_the_index_is_merged_whole(tmp_path: Path) -> None:
    """The copy was written at the very name the shell takes as memidx's, made whole: killed
    half way, the shell ran the merge on half an index ("index file smaller than expected"),
    failed and moved the branch back (`merge (undone)`); after a remember, whose `git reset`
    failed the same way, HEAD stayed moved and git's index did not follow (the note staged
    as deleted for the person's next commit). Now the copy is renamed there only once whole."""
    two = _behind_by_three_notes(tmp_path)
    for n in range(40):  # an index whose second half names these
        two.write(f"notes/z/{n:02d}.md", f"note {n}\n".encode())
    two.commit("forty notes")
    theirs = two.git("rev-parse", "origin/main").strip()

    argv = [sys.executable, "-c", KILLED_IN_ITS_COPY, str(two.root)]
    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, check=False)

    assert done.returncode == -9, done.stderr.decode()  # killed in its copy
    shell_ended(two.root)
    assert "(undone)" not in two.git("reflog", "-1")
    two.git("merge-base", "--is-ancestor", theirs, "HEAD")  # merged: fails otherwise
    assert two.git("diff", "--cached", "--name-status", "HEAD") == ""  # no note staged away
    assert two.git("ls-files", "notes/z").count("\n") == 40


# a share on the slow path killed once it copied git's index for the move's shell
KILLED_AFTER_ITS_COPY = """
import os, signal, sys
from pathlib import Path
from memidx.git import index_swap, move_follow
root = Path(sys.argv[1])
index_swap.usable = lambda *args, **kwargs: False
copied = move_follow.copy_index
def copy_index(git_dir):
    copied(git_dir)
    os.kill(os.getpid(), signal.SIGKILL)
move_follow.copy_index = copy_index
from memidx.cli.main import main
main(["-C", str(root), "share"])
sys.exit(3)
"""


def test_share_killed_as_its_shell_merges_leaves_no_copy_beside_a_note(tmp_path: Path) -> None:
    """The shell's `read-tree -m -u` wrote the merge's files, then its judge of the files the
    merge deletes or changes (for a remember's restore, which leaves the work tree) moved
    `notes/seed.md`, rewritten by the merge, aside, found it not the bytes judged (they were
    the merge's) and kept it beside as `.seed.md.memidx-<pid>`: untracked in notes/ for the
    person's next `git add -A`, removed only by a memidx alive when the shell ended."""
    two = _behind_by_three_notes(tmp_path)
    theirs = two.git("rev-parse", "origin/main").strip()

    argv = [sys.executable, "-c", KILLED_AFTER_ITS_COPY, str(two.root)]
    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, check=False)

    assert done.returncode == -9, done.stderr.decode()  # killed once HEAD moved
    shell_ended(two.root)
    two.git("merge-base", "--is-ancestor", theirs, "HEAD")  # merged: fails otherwise
    assert two.git("status", "--porcelain", "-uall") == ""
    _merged_whole(two)
