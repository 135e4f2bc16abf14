"""`memidx forget` of a note that is a symbolic link: git tracks the link, so the link is the
note, and it goes; what it names, in the notes folder or outside it, is never touched. It was
refused as `has changes not committed` (the link's target read through it, compared with
git's blob of the link), with a `git restore` that changed nothing; a dangling one was
forgotten in git and left in the work tree, untracked, `your edit is left` of no edit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.git import index_swap
from tests.cli.test_forget_odd_names import edit_as_head_moves
from tests.helpers import NotesRepo, started_memory

TARGET = "---\ntitle: Elsewhere\n---\nThe file the link names, outside the notes.\n"


def _linked(tmp_path: Path, link: str, target: str) -> NotesRepo:
    repo = started_memory(tmp_path)
    repo.write("elsewhere.md", TARGET)
    repo.note("real.md", "Real", "A note of its own that a link names.")
    (repo.root / "notes" / "links").mkdir()
    (repo.root / link).symlink_to(target)
    repo.commit("a link")
    assert "skipped: symlink" in repo.memidx("sync").err  # indexed as skipped (exit 1)
    return repo


def _never(*_: object) -> bool:
    return False


@pytest.mark.parametrize("fast", [True, False], ids=["swap", "follow"])
@pytest.mark.parametrize(
    "target", ["../../elsewhere.md", "../real.md", "/nonexistent/gone.md"],
    ids=["outside", "a-note", "dangling"],
)  # fmt: skip
def test_a_linked_note_is_forgotten_as_its_link_and_what_it_names_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, fast: bool
) -> None:
    ref = "notes/links/x.md"
    repo = _linked(tmp_path, ref, target)
    if not fast:
        monkeypatch.setattr(index_swap, "usable", _never)

    said = repo.memidx("forget", ref)

    assert said.code == 0, said
    assert said.err == "" and said.out.startswith(f"forgot {ref} (deletion committed as "), said
    assert not os.path.lexists(repo.root / ref)  # the link
    assert not (repo.root / "notes" / "links").exists()  # its emptied folder, as for a file
    assert (repo.root / "elsewhere.md").read_text() == TARGET  # what it named: untouched
    assert (repo.root / "notes" / "real.md").is_file()
    assert ref not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert "notes/real.md" in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert repo.git("status", "--porcelain") == ""
    status = repo.memidx("status")
    assert ref not in status.out, status.out  # no longer a skipped note


def test_a_link_pointed_elsewhere_and_not_committed_is_not_forgotten(tmp_path: Path) -> None:
    ref = "notes/links/x.md"
    repo = _linked(tmp_path, ref, "../../elsewhere.md")
    (repo.root / ref).unlink()
    (repo.root / ref).symlink_to("../real.md")
    head = repo.git("rev-parse", "HEAD")

    said = repo.memidx("forget", ref)

    assert said.code == 1, said
    assert f"{ref} has changes not committed" in said.err, said.err
    assert (repo.root / ref).readlink() == Path("../real.md")
    assert repo.git("rev-parse", "HEAD") == head


def test_a_link_pointed_elsewhere_during_the_forget_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between forget's look and HEAD's move, the person points the link elsewhere (a shim
    replaces it as `git update-ref` starts): the note is forgotten, their link kept and said."""
    ref = "notes/links/x.md"
    repo = _linked(tmp_path, ref, "../../elsewhere.md")
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").symlink_to("../real.md")
    edit_as_head_moves(tmp_path, monkeypatch, tmp_path / "unused")
    shim = tmp_path / "shim" / "git"
    shim.write_text(
        shim.read_text().replace(
            f"cat {tmp_path / 'edit'} >>{tmp_path / 'unused'}",
            f"mv -f {other / 'x.md'} {repo.root / ref}",
        )
    )

    said = repo.memidx("forget", ref)

    assert said.code == 0, said
    assert f"{ref} changed while it was being forgotten" in said.err, said.err
    assert (repo.root / ref).readlink() == Path("../real.md")
    assert ref not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
