"""memidx killed on the fast path of a forget's move (memidx.git.index_swap.swap) once it deleted
the note (move_aside.deleted_judged) and before it removed the folder that deletion left
empty (remove_emptied): the folder stayed under notes/, empty, for good. The next run sweeps
it: only a folder memidx emptied, never one the person made empty."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.helpers import NotesRepo, started_memory
from tests.move_shell import killed_and_followed

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)
REF = "notes/ops/deploy.md"
# a forget killed on the fast path once the note was deleted, before its folder went
KILLED = """
import os, signal, sys
from pathlib import Path
from memidx.git import index_swap
real = index_swap.deleted_judged
def deleted_judged(*args, **kwargs):
    deleted = real(*args, **kwargs)
    if deleted:
        os.kill(os.getpid(), signal.SIGKILL)
    return deleted
index_swap.deleted_judged = deleted_judged
from memidx.cli.main import main
main(["-C", sys.argv[1], "forget", sys.argv[2]])
"""


def _killed(repo: NotesRepo) -> None:
    argv = [sys.executable, "-c", KILLED, str(repo.root), REF]
    killed_and_followed(repo.root, argv)


def test_a_folder_a_killed_forget_emptied_goes_at_the_next_run(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    (repo.root / "notes" / "mine").mkdir()  # the person's own empty folder

    _killed(repo)

    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten
    assert not (repo.root / REF).exists()
    said = repo.memidx("status")
    assert said.code in (0, 1), said
    assert not (repo.root / "notes" / "ops").exists(), said.out + said.err
    assert (repo.root / "notes" / "mine").is_dir()  # never a folder the person made empty
