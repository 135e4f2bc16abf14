"""An edit the person makes to a note after `memidx forget` judged it unchanged and before
HEAD moves: the move's swap (memidx.git.index_swap) and its follow's `git restore --worktree`
deleted the file with the edit in it, `forgot ...`, exit 0, and the edit was lost. Now the file
goes only while it holds exactly the bytes forget judged; an edit is left in the work tree,
untracked, and said. A git shim on PATH makes the edit as `git update-ref` starts: after the
look, before the move, every time."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memidx.git import index_swap
from tests.helpers import NotesRepo, started_memory

REF = "notes/ops/deploy.md"
EDIT = "The person's line, written while the forget ran.\n"


def _shim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, note: Path) -> None:
    """`git` first on PATH: it appends EDIT to `note` (once) when `update-ref` starts."""
    import shutil

    real = shutil.which("git")
    assert real is not None
    folder, done, edit = tmp_path / "shim", tmp_path / "edited", tmp_path / "edit"
    folder.mkdir()
    edit.write_text(EDIT)
    (folder / "git").write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do [ "$a" = update-ref ] || continue\n'
        f"  [ -e {done} ] || {{ cat {edit} >>{note}; : >{done}; }}; break\n"
        "done\n"
        f'exec {real} "$@"\n'
    )
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def _never(*_: object) -> bool:
    """index_swap.usable's answer when the index changed since its copy."""
    return False


def _memory(tmp_path: Path) -> tuple[NotesRepo, str]:
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    return repo, (repo.root / REF).read_text()


@pytest.mark.parametrize("fast", [True, False], ids=["swap", "follow"])
def test_an_edit_made_during_the_forget_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    repo, before = _memory(tmp_path)
    if not fast:  # the index changed since its copy: the move's follow brings it along
        monkeypatch.setattr(index_swap, "usable", _never)
    _shim(tmp_path, monkeypatch, repo.root / REF)

    said = repo.memidx("forget", REF)

    assert said.code == 0, said
    assert f"forgot {REF}" in said.out and "Traceback" not in said.err
    assert (repo.root / REF).read_text() == before + EDIT  # the edit, in full
    assert f"{REF} changed while it was being forgotten" in said.err
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten all the same
    assert repo.git("status", "--porcelain", "--", REF) == f"?? {REF}\n"  # untracked, not staged


@pytest.mark.parametrize("fast", [True, False], ids=["swap", "follow"])
def test_a_note_not_edited_still_goes_with_its_emptied_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    repo, _ = _memory(tmp_path)
    if not fast:
        monkeypatch.setattr(index_swap, "usable", _never)

    said = repo.memidx("forget", REF)

    assert said.code == 0, said
    assert not (repo.root / REF).exists() and "changed while" not in said.err
    assert not (repo.root / REF).parent.exists()  # notes/ops/ emptied: gone, as git's restore
    assert repo.git("status", "--porcelain") == ""


def test_memidx_killed_at_the_move_leaves_the_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed as HEAD moves, memidx swaps nothing: the move's own shell follows alone."""
    repo, before = _memory(tmp_path)
    _shim(tmp_path, monkeypatch, repo.root / REF)

    repo.memidx_killed_as_head_moves("forget", REF)

    lock = repo.root / ".git" / "index.lock"
    for _ in range(200):  # the shell's follow ends on its own: 10 s at most
        if not lock.exists():
            break
        time.sleep(0.05)
    assert not lock.exists()
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert (repo.root / REF).read_text() == before + EDIT
    assert repo.git("status", "--porcelain", "--", REF) == f"?? {REF}\n"


def test_a_note_the_move_s_shell_leaves_to_forget_goes_with_its_emptied_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name with a line break has no line in the shell's list (move_lines): forget deletes
    the file itself once the move is done, and left its emptied folder (README: it goes)."""
    repo = started_memory(tmp_path)
    ref = repo.note("ops/line\nbreak.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    monkeypatch.setattr(index_swap, "usable", _never)  # the move's follow does the work tree

    said = repo.memidx("forget", ref)

    assert said.code == 0, said
    assert not (repo.root / ref).exists() and "changed while" not in said.err
    assert not (repo.root / "notes" / "ops").exists()
    assert repo.git("status", "--porcelain") == ""


def test_the_json_of_a_forget_names_the_edit_it_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`forget --json` said the note was forgotten and nothing of the file it left: `kept`
    names it, `warnings` holds the line said on stderr; both empty for a forget that kept
    nothing."""
    repo, _ = _memory(tmp_path)
    plain = repo.note("ops/other.md", "Other", "Another note, forgotten as it is.")
    repo.commit("other")
    _shim(tmp_path, monkeypatch, repo.root / REF)

    said = repo.memidx("forget", "--json", REF)
    other = repo.memidx("forget", "--json", plain)

    assert said.code == 0 and other.code == 0, (said, other)
    assert said.json()["kept"] == REF and said.json()["commit"]
    warnings = said.json()["warnings"]
    assert len(warnings) == 1 and warnings[0].startswith(f"{REF} changed while it was being")
    assert other.json()["kept"] is None and other.json()["warnings"] == []
