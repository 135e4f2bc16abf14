"""The move's own shell (memidx.git.move_script, which follows HEAD's move when
memidx.git.index_swap cannot) killed with the note's file moved aside, between its `mv` and
its `rm` or link back: memidx, alive, let the shell's lock go and said `forgot ...`, exit 0,
and the file stayed aside (`.deploy.md.memidx-<pid>`, hidden, untracked: `git add -A` took
it) until the next `memidx status`, an edit of the person in it unsaid. Now memidx puts right
what its ended shell left aside, as that status would: the forgotten note's bytes go, an edit
goes back to its path, kept and said like any edit saved as the note was forgotten."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from memidx.git import index_swap, move_follow
from tests.helpers import NotesRepo, started_memory

REF = "notes/ops/deploy.md"
EDIT = b"The person's line, saved as the forget deleted the note.\n"
# `git` first on PATH: the shell's `hash-object --stdin-paths` of the files it moved aside
# kills the shell's whole session (the shell, its subshells and this git) at once; with EDIT
# set, the person's edit lands in the file aside first, as through a file open before the move
KILLING_GIT = """#!/bin/sh
case " $* " in *" --stdin-paths "*)
  if [ ! -e {done} ]; then
    : >{done}
    [ -z "$EDIT" ] || for f in {folder}/.deploy.md.memidx-*; do printf %s "$EDIT" >>"$f"; done
    {python} -c "import os; os.killpg(os.getpgid(0), 9)"
  fi;;
esac
exec {real} "$@"
"""


def _never(*_: object, **__: object) -> bool:
    return False


def _killed_forget(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, edit: bytes) -> str:
    """`memidx forget REF`, its move's shell killed with the note's file aside; its stderr."""
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    done, shim = repo.root.parent / "killed", repo.root.parent / "shim"
    shim.mkdir()
    real = shutil.which("git")
    assert real is not None
    (shim / "git").write_text(
        KILLING_GIT.format(
            done=shlex.quote(str(done)),
            folder=shlex.quote(str(repo.root / "notes" / "ops")),
            python=shlex.quote(sys.executable),
            real=shlex.quote(real),
        )
    )
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("EDIT", edit.decode())
    monkeypatch.setattr(index_swap, "usable", _never)  # no copy made before the move stands,
    monkeypatch.setattr(move_follow, "followed", _never)  # nor memidx's own: the shell follows

    said = repo.memidx("forget", REF)

    monkeypatch.undo()
    assert done.exists(), "the shell was killed"
    assert said.code == 0, said
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten
    assert not (repo.root / ".git" / "index.lock").exists()
    return said.err


def test_the_note_a_killed_move_shell_left_aside_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)

    err = _killed_forget(repo, monkeypatch, b"")

    assert "changed while it was being forgotten" not in err, err
    assert not (repo.root / REF).exists()
    assert repo.git("status", "--porcelain", "-uall") == ""  # nothing aside


def test_an_edit_a_killed_move_shell_left_aside_is_kept_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)

    err = _killed_forget(repo, monkeypatch, EDIT)

    assert f"{REF} changed while it was being forgotten" in err, err
    assert (repo.root / REF).read_bytes().endswith(EDIT)
    assert repo.git("status", "--porcelain", "-uall") == f"?? {REF}\n"  # nothing aside
