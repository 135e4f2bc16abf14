"""memidx killed once its own follow of HEAD's move wrote a remembered note (its fast path's
swap, or its slow follow's checkout), before it let git's index lock go: the move's shell, which
runs on, did the follow again with `git checkout <new> -- <note>`, and wrote the note over an
edit the person saved into it in between. The shell now brings only git's index to the commit
and writes the note where nothing is (or where the bytes the commit replaced still are): the
edit stays, an unstaged change of the committed note."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.helpers import NotesRepo, clean_env, started_memory

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)
EDIT = b"The person's line, saved once memidx had written the note.\n"
# a remember killed at `step` (argv[2]) once it wrote the note, the edit appended to it first:
# `swap` once the fast path placed it, else at that mark of its own follow (usable says no)
KILLED = """
import os, signal, sys
from pathlib import Path
from memidx.git import index_swap, move_trace
root, step, edit = Path(sys.argv[1]), sys.argv[2], sys.argv[3].encode()
def saved_then_killed():
    for note in (root / "notes").rglob("*.md"):
        if "deploy" in note.name:
            with note.open("ab") as file:
                file.write(edit)
    os.kill(os.getpid(), signal.SIGKILL)
if step == "swap":
    real = index_swap.swap
    def swap(*args, **kwargs):
        done = real(*args, **kwargs)
        if done:
            saved_then_killed()
        return done
    index_swap.swap = swap
else:
    index_swap.usable = lambda *args, **kwargs: False
    def mark(at):
        if at == step:
            saved_then_killed()
    move_trace.mark = mark
from memidx.cli.main import main
main(["-C", str(root), "remember", "--title", "Deploy days"])
"""
BODY = b"Deploys go out on Tuesdays.\n"


def _killed_at(repo: NotesRepo, step: str) -> None:
    argv = [sys.executable, "-c", KILLED, str(repo.root), step, EDIT.decode()]
    done = subprocess.run(argv, cwd=repo.root, env=clean_env(), input=BODY,
                          capture_output=True, check=False)  # fmt: skip
    assert done.returncode == -9, done.stderr.decode()
    lock = repo.root / ".git" / "index.lock"
    for _ in range(600):  # the shell runs on (its own session): its end lets the lock go
        if not lock.exists():
            break
        time.sleep(0.05)
    assert not lock.exists(), "the move's shell let the lock go"


@pytest.mark.parametrize("step", ["swap", "ran", "written", "renamed"])
def test_the_shell_s_redo_keeps_an_edit_saved_since_memidx_wrote_the_note(
    tmp_path: Path, step: str
) -> None:
    repo = started_memory(tmp_path)

    _killed_at(repo, step)

    notes = [p for p in (repo.root / "notes").rglob("*.md") if "deploy" in p.name]
    assert len(notes) == 1, notes
    ref = notes[0].relative_to(repo.root).as_posix()
    committed = repo.git("show", f"HEAD:{ref}").encode()
    assert BODY.strip() in committed
    assert notes[0].read_bytes() == committed + EDIT  # was: the commit's bytes, the edit lost
    assert repo.git("status", "--porcelain", "-uall") == f" M {ref}\n"  # index: the commit's
