"""An edit the person saves in the instant between forget's last comparison of the note's
file and its unlink (memidx.git.index_swap's swap, forget's own deletion once HEAD lacks the
note): the file was read, found as judged, then unlinked with the edit in it, `forgot ...`,
exit 0, and the edit was lost. Now the file is moved aside first and compared there: a save
after that makes a file of its own at the path, which stays, said like any edit."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from memidx.git import index_swap, move_follow
from tests.helpers import clean_env, started_memory

REF = "notes/ops/deploy.md"
EDIT = "The person's line, saved as the forget deleted the note.\n"


def _save_after_the_last_read(
    monkeypatch: pytest.MonkeyPatch, root: Path, before: bytes
) -> list[bool]:
    """Path.read_bytes, which both the swap and forget's deletion compare with: once HEAD
    lacks the note, its first read of the note's bytes (at its path or aside) is followed at
    once by the person's save of the note with EDIT, as an editor saves (the whole file, at
    its path). Returns a list that holds True once the save was made."""
    real = Path.read_bytes
    saved: list[bool] = []

    def read_bytes(self: Path) -> bytes:
        data = real(self)
        aside = self.parent.name.startswith("memidx-aside-")  # the move's folder aside
        if saved or data != before or not (aside or self.name.lstrip(".").startswith("deploy.md")):
            return data
        listed = subprocess.run(
            ["git", "ls-tree", "--name-only", "HEAD", "--", REF], cwd=root, env=clean_env(),
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        if listed:  # the forget's look, before the move: no save yet
            return data
        saved.append(True)
        (root / REF).write_bytes(before + EDIT.encode())
        return data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    return saved


def _never(*_: object) -> bool:
    return False


@pytest.mark.parametrize("fast", [True, False], ids=["swap", "forget"])
def test_an_edit_saved_between_the_comparison_and_the_unlink_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    before = (repo.root / REF).read_bytes()
    if not fast:  # no swap, no shell (no POSIX shell: memidx.children.SHELL): forget deletes
        monkeypatch.setattr(index_swap, "usable", _never)
        monkeypatch.setattr("memidx.children.SHELL", None)
    saved = _save_after_the_last_read(monkeypatch, repo.root, before)

    said = repo.memidx("forget", REF)

    monkeypatch.undo()
    assert saved, "the save was made"
    assert said.code == 0, said
    assert (repo.root / REF).read_bytes() == before + EDIT.encode()  # the edit, in full
    assert f"{REF} changed while it was being forgotten" in said.err, said.err
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert repo.git("status", "--porcelain", "-uall") == f"?? {REF}\n"  # nothing aside


# `git` first on PATH: the move's own shell (git's index locked by memidx) hashes the files it
# deletes with one `hash-object --stdin-paths`; the person's save of the note lands as that
# git ends, before the shell's rm
SAVING_GIT = """#!/bin/sh
case " $* " in *" --stdin-paths "*)
  if [ -e {lock} ] && [ ! -e {done} ]; then
    {real} "$@"; said=$?; cp {edited} {note}; : >{done}; exit $said
  fi;;
esac
exec {real} "$@"
"""


def test_an_edit_saved_after_the_move_s_shell_hashed_the_note_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move's own shell follows when neither index_swap (git's index changed since its
    copy) nor memidx itself (memidx.git.move_follow) can: it hashed the note at its path, then
    removed it, and an edit saved in between was deleted with it, `forgot ...`, exit 0. Now it
    moves the file aside first, as memidx.git.judged_unlink does: the save makes a file of its
    own, which stays, said."""
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    before = (repo.root / REF).read_bytes()
    edited, done, shim = tmp_path / "edited", tmp_path / "saved", tmp_path / "shim"
    edited.write_bytes(before + EDIT.encode())
    shim.mkdir()
    real = shutil.which("git")
    assert real is not None
    (shim / "git").write_text(
        SAVING_GIT.format(
            lock=shlex.quote(str(repo.root / ".git" / "index.lock")),
            done=shlex.quote(str(done)),
            real=shlex.quote(real),
            edited=shlex.quote(str(edited)),
            note=shlex.quote(str(repo.root / REF)),
        )
    )
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(index_swap, "usable", _never)
    monkeypatch.setattr(move_follow, "followed", _never)  # nor memidx's own follow: the shell

    said = repo.memidx("forget", REF)

    monkeypatch.undo()
    assert done.exists(), "the save was made"
    assert said.code == 0, said
    assert (repo.root / REF).read_bytes() == before + EDIT.encode()  # the edit, in full
    assert f"{REF} changed while it was being forgotten" in said.err, said.err
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert repo.git("status", "--porcelain", "-uall") == f"?? {REF}\n"  # nothing aside
