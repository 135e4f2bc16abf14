"""memidx's own follow of HEAD's move (memidx.git.move_follow: no copy made before the move stood
for git's index) killed with SIGKILL at each of its steps, the trace's names for them: the
move's shell, which runs on, brings git's index to the commit and lets the lock go, and the
next `memidx status` puts back what memidx had set aside in its folder (memidx.git.move_aside).
The person's staged change stays staged, the forgotten note stays forgotten, and an edit saved
into the note as it was set aside comes back at its path, untracked."""

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
EDIT = b"The person's line, saved as the note was set aside.\n"
# a memidx whose follow is its own (index_swap.usable says no) and that kills itself at `step`
# (argv[2]); with an edit (argv[3]) it first appends it to each file set aside
KILLED = """
import os, signal, sys
from pathlib import Path
from memidx.git import index_swap, move_trace
root, step, edit = Path(sys.argv[1]), sys.argv[2], sys.argv[3].encode()
index_swap.usable = lambda *args, **kwargs: False
def mark(at):
    if at == step:
        for aside in (root / ".git").glob("memidx-aside-*/[0-9]*"):
            with aside.open("ab") as file:
                file.write(edit)
        os.kill(os.getpid(), signal.SIGKILL)
move_trace.mark = mark
from memidx.cli.main import main
main(["-C", str(root), "forget", sys.argv[4]])
"""
STEPS = ["copied", "ran", "aside", "judged", "written", "renamed"]


def _killed_at(repo: NotesRepo, step: str, edit: bytes) -> None:
    """`memidx forget REF` killed at `step` of its own follow; returns once its shell ended."""
    argv = [sys.executable, "-c", KILLED, str(repo.root), step, edit.decode(), REF]
    killed_and_followed(repo.root, argv)


@pytest.mark.parametrize(
    ("step", "edit"),
    [*((step, b"") for step in STEPS), ("aside", EDIT)],
    ids=[*STEPS, "aside-edited"],
)
def test_memidx_killed_at_each_step_of_its_follow_loses_nothing(
    tmp_path: Path, step: str, edit: bytes
) -> None:
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    (repo.root / "person.txt").write_text("the person's work\n")
    repo.git("add", "person.txt")
    note = (repo.root / REF).read_bytes()

    _killed_at(repo, step, edit)

    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten
    said = repo.memidx("status")
    assert said.code in (0, 1), said
    left = [*(repo.root / ".git").glob("memidx-aside-*"), *(repo.root / ".git").glob("*-index-*")]
    assert left == []
    status = repo.git("status", "--porcelain", "-uall")
    if edit:
        assert status == f"A  person.txt\n?? {REF}\n", status + said.out + said.err
        assert (repo.root / REF).read_bytes() == note + edit
        assert f"put {REF} back" in said.out + said.err
    else:
        assert status == "A  person.txt\n", status + said.out + said.err
        assert not (repo.root / REF).exists()
