"""What a move of HEAD killed with SIGKILL at a named step left beside the notes once its shell
ended and the next `memidx status` put right what memidx had set aside
(memidx.git.move_aside.folders_back)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.cli.test_move_follow_killed import REF, _killed_at  # pyright: ignore[reportPrivateUsage]
from tests.cli.test_share_killed_in_its_follow import (
    KILLED_IN_ITS_SWAP,
    _merged_whole,  # pyright: ignore[reportPrivateUsage]
)
from tests.cli.test_share_write_fails import _behind_by_three_notes  # pyright: ignore[reportPrivateUsage]
from tests.helpers import clean_env, started_memory
from tests.move_shell import SWAP_NOTED, shell_ended

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)


def test_share_killed_in_its_swap_aside_window_leaves_no_old_bytes_beside(tmp_path: Path) -> None:
    """The merge rewrote notes/seed.md: set aside (its old bytes, judged) when share was
    killed, the shell wrote the merge's bytes at its path, and status kept the old ones beside
    them as `.seed.md.memidx-<pid>`, for the person's next `git add -A`."""
    two = _behind_by_three_notes(tmp_path)
    argv = [sys.executable, "-c", KILLED_IN_ITS_SWAP, str(two.root), "aside"]
    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, check=False)
    assert done.returncode == -9, done.stderr.decode()  # killed in its swap's aside window
    shell_ended(two.root)

    said = two.memidx("status")

    assert said.code in (0, 1), said
    assert two.git("status", "--porcelain", "-uall") == "", said.out + said.err
    assert list((two.root / ".git").glob("memidx-aside-*")) == []
    _merged_whole(two)


@pytest.mark.parametrize("step", ["judged", "written", "renamed"])
def test_forget_killed_in_its_follow_leaves_no_emptied_folder(tmp_path: Path, step: str) -> None:
    """Killed once it deleted the note, before it removed the folder that left empty: the
    shell's redo skipped the file already gone (`judged`, `written`), or failed on the index
    memidx had renamed (`renamed`: its restore matched nothing), and `notes/ops/` stayed."""
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")

    _killed_at(repo, step, b"")
    said = repo.memidx("status")

    assert said.code in (0, 1), said
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten
    assert not (repo.root / REF).exists()
    assert not (repo.root / "notes" / "ops").exists(), said.out + said.err
    assert repo.git("status", "--porcelain", "-uall") == ""


# a forget on the fast path (memidx.git.index_swap.swap) killed the moment its set-aside folder
# is made, before the note moves into it (exit 3: the fast path was not taken)
KILLED_AT_ITS_ASIDE = f"""
import os, signal, sys
from memidx.git import index_swap, move_aside
made = move_aside._made
{SWAP_NOTED}
def _made(git_dir):
    folder = made(git_dir)
    os.kill(os.getpid(), signal.SIGKILL if swap.ran else signal.SIGTERM)
    return folder
move_aside._made = _made
from memidx.cli.main import main
main(["-C", sys.argv[1], "forget", sys.argv[2]])
"""


def test_forget_killed_on_its_fast_path_before_the_note_is_set_aside_forgets_it(
    tmp_path: Path,
) -> None:
    """The swap renamed its index over git's before it deleted the note: killed between, its
    shell's follow ran on an index with no entry at the note's path, failed before its
    `leave`, and the forgotten note stayed in the work tree, untracked, for `git add -A`
    (tests/cli/test_git_scenarios.py's forget killed as its commit lands, 3-5 runs in 6)."""
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    argv = [sys.executable, "-c", KILLED_AT_ITS_ASIDE, str(repo.root), REF]

    done = subprocess.run(argv, cwd=repo.root, env=clean_env(), capture_output=True, check=False)

    assert done.returncode == -9, done.stderr.decode()  # killed in the fast path's set-aside
    shell_ended(repo.root)
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten
    assert repo.git("status", "--porcelain", "-uall") == ""  # before any memidx runs again
    said = repo.memidx("status")
    assert said.code in (0, 1), said
    assert list((repo.root / ".git").glob("memidx-aside-*")) == []
    assert repo.git("status", "--porcelain", "-uall") == ""


# a share on its fast path killed the moment its swap begins to delete the files the merge
# deletes or rewrites (memidx.git.index_swap.deleted_judged)
KILLED_AS_ITS_SWAP_DELETES = """
import os, signal, sys
from memidx.git import index_swap
def deleted_judged(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
index_swap.deleted_judged = deleted_judged
from memidx.cli.main import main
main(["-C", sys.argv[1], "share"])
sys.exit(3)
"""


def test_share_killed_as_its_swap_deletes_leaves_no_old_bytes_at_a_rewritten_note(
    tmp_path: Path,
) -> None:
    """The swap renamed its index over git's before it deleted the note the merge rewrote:
    killed between, the shell's `read-tree -m -u` found git's index already at the merge (it
    kept each entry, wrote nothing) and its `leave` writes only where nothing is, so
    notes/seed.md kept its old bytes under the merge's index, ` M` for a `git commit -a` that
    undoes the merge's change. The files go first now: the shell merges from the index as it
    was (memidx.git.index_swap.swap)."""
    two = _behind_by_three_notes(tmp_path)
    argv = [sys.executable, "-c", KILLED_AS_ITS_SWAP_DELETES, str(two.root)]

    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, check=False)

    assert done.returncode == -9, done.stderr.decode()  # killed in its swap, not before
    shell_ended(two.root)
    assert two.git("status", "--porcelain", "-uall") == ""
    _merged_whole(two)
