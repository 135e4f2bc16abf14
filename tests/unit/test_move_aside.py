"""The files a move deletes, set aside in one folder of the git folder and judged there
(memidx.git.move_aside): the bytes judged go, an edit comes back (beside its path when a file
was saved there since), and a folder a killed memidx left is put right by the next status."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.git.move_aside import PREFIX, deleted_judged, folders_back, judge, set_aside
from tests.helpers import NotesRepo, dead_pid

SAME, EDITED = b"# A\n\nas judged\n", b"# B\n\nas judged\n"


def _two_notes(root: Path) -> dict[str, bytes | None]:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / "notes").mkdir(exist_ok=True)
    (root / "notes" / "a.md").write_bytes(SAME)
    (root / "notes" / "b.md").write_bytes(EDITED + b"the person's edit\n")
    return {"notes/a.md": SAME, "notes/b.md": EDITED}


def test_the_bytes_judged_go_and_an_edit_comes_back(tmp_path: Path) -> None:
    gone = _two_notes(tmp_path)

    deleted = deleted_judged(tmp_path, tmp_path / ".git", gone)

    assert deleted == {"notes/a.md": SAME}
    assert not (tmp_path / "notes" / "a.md").exists()
    assert (tmp_path / "notes" / "b.md").read_bytes() == EDITED + b"the person's edit\n"
    assert list((tmp_path / ".git").iterdir()) == []  # the folder went
    assert sorted(p.name for p in (tmp_path / "notes").iterdir()) == ["b.md"]


def test_an_edit_whose_path_was_saved_again_stays_beside_it(tmp_path: Path) -> None:
    gone = _two_notes(tmp_path)
    aside = set_aside(tmp_path, tmp_path / ".git", gone)
    assert aside is not None and aside.folder is not None
    (tmp_path / "notes" / "b.md").write_bytes(b"saved at its path since\n")

    assert judge(tmp_path, aside) == ["notes/a.md"]

    assert (tmp_path / "notes" / "b.md").read_bytes() == b"saved at its path since\n"
    beside = tmp_path / "notes" / f".b.md.memidx-{os.getpid()}"
    assert beside.read_bytes() == EDITED + b"the person's edit\n"
    assert not aside.folder.exists()


def test_with_no_folder_to_be_had_each_file_is_judged_where_it_is(tmp_path: Path) -> None:
    gone = _two_notes(tmp_path)
    (tmp_path / ".git").rmdir()  # no git folder to make one in

    deleted = deleted_judged(tmp_path, tmp_path / ".git", gone)

    assert deleted == {"notes/a.md": SAME}
    assert (tmp_path / "notes" / "b.md").read_bytes() == EDITED + b"the person's edit\n"


def test_a_killed_memidx_s_folder_is_put_right(repo: NotesRepo) -> None:
    repo.write("notes/a.md", SAME)
    repo.write("notes/b.md", EDITED)
    repo.commit("notes")
    repo.git("rm", "-q", "notes/a.md", "notes/b.md")
    repo.git("commit", "-q", "--no-verify", "-m", "forget")  # the files deleted with HEAD
    folder = repo.root / ".git" / f"{PREFIX}{dead_pid()}"
    folder.mkdir()
    (folder / "paths").write_bytes(b"0 notes/a.md\n1 notes/b.md\n")
    (folder / "0").write_bytes(SAME)  # the bytes the commit deleted: the note stays forgotten
    (folder / "1").write_bytes(EDITED + b"the person's edit\n")  # an edit: back at its path

    said = folders_back(repo.root, repo.root / ".git")

    assert len(said) == 2, said
    assert "notes/a.md stays forgotten" in said[0]
    assert said[1].startswith("put notes/b.md back")
    assert not (repo.root / "notes" / "a.md").exists()
    assert (repo.root / "notes" / "b.md").read_bytes() == EDITED + b"the person's edit\n"
    assert not folder.exists()


@pytest.mark.parametrize(
    "name", ["notes/a\rb.md", "notes/end\r.md", "notes/-dash  two spaces.md", "notes/ünï ノート.md"]
)
def test_a_killed_memidx_s_edit_goes_back_to_its_own_odd_name(repo: NotesRepo, name: str) -> None:
    """The folder's list was read with splitlines, which also breaks at a carriage return: the
    edit in `notes/a<CR>b.md` came back as `notes/a`, its own name left deleted."""
    repo.write(name, SAME)
    repo.commit("a note")
    (repo.root / name).write_bytes(SAME + b"the person's edit\n")
    aside = set_aside(repo.root, repo.root / ".git", {name: SAME})
    assert aside is not None and aside.folder is not None
    aside.folder.rename(aside.folder.with_name(f"{PREFIX}{dead_pid()}"))  # its memidx killed

    said = folders_back(repo.root, repo.root / ".git")

    assert len(said) == 1 and said[0].startswith("put notes/"), said
    assert (repo.root / name).read_bytes() == SAME + b"the person's edit\n"
    assert sorted(p.name for p in (repo.root / "notes").iterdir()) == [Path(name).name]
    assert not list((repo.root / ".git").glob(f"{PREFIX}*"))


def test_a_file_that_cannot_go_back_yet_keeps_the_list_that_names_it(repo: NotesRepo) -> None:
    """An edit a killed memidx set aside whose folder is now a file (the person's) cannot go
    back; the folder's list was removed anyway, and the edit was left in the git folder under
    a number, which no later status could name or put back once the way was clear."""
    folder = repo.root / ".git" / f"{PREFIX}{dead_pid()}"
    folder.mkdir()
    (folder / "paths").write_bytes(b"0 notes/ops/a.md\n")
    (folder / "0").write_bytes(EDITED + b"the person's edit\n")
    repo.write("notes/ops", b"a file of the person's where the folder was\n")

    assert folders_back(repo.root, repo.root / ".git") == []
    (repo.root / "notes" / "ops").unlink()  # the way cleared
    said = folders_back(repo.root, repo.root / ".git")

    assert said and said[0].startswith("put notes/ops/a.md back"), said
    assert (repo.root / "notes" / "ops" / "a.md").read_bytes() == EDITED + b"the person's edit\n"
    assert not folder.exists()


def _killed_with_its_bytes_listed(repo: NotesRepo, judged: bytes) -> Path:
    """A killed memidx's folder (this memidx's list: each path with the digest of the bytes
    judged) holding notes/a.md's file as it was judged."""
    import hashlib

    folder = repo.root / ".git" / f"{PREFIX}{dead_pid()}"
    folder.mkdir()
    (folder / "paths").write_bytes(
        b"0:%s notes/a.md\n" % hashlib.sha256(judged).hexdigest().encode()
    )
    (folder / "0").write_bytes(judged)
    return folder


def test_a_rewritten_note_s_old_bytes_go_once_the_move_s_are_at_its_path(repo: NotesRepo) -> None:
    """share's merge rewrote notes/a.md: its old bytes (git holds them) were kept beside the
    merge's as `.a.md.memidx-<pid>`, for the person's next `git add -A`."""
    repo.write("notes/a.md", SAME)
    repo.commit("a note")
    repo.write("notes/a.md", EDITED)
    repo.commit("rewritten")  # the move's commit, written at its path by the move's shell
    folder = _killed_with_its_bytes_listed(repo, SAME)

    said = folders_back(repo.root, repo.root / ".git")

    assert len(said) == 1 and said[0].startswith("removed the bytes notes/a.md held"), said
    assert (repo.root / "notes" / "a.md").read_bytes() == EDITED
    assert sorted(p.name for p in (repo.root / "notes").iterdir()) == ["a.md"]
    assert not folder.exists()


def test_a_forgotten_note_s_bytes_beside_a_file_saved_at_its_path_stay(repo: NotesRepo) -> None:
    """HEAD no longer holds notes/a.md (forgotten) and the person saved a new file there: the
    forgotten bytes stay beside it, as before, never dropped for the bytes judged."""
    repo.write("notes/a.md", SAME)
    repo.commit("a note")
    repo.git("rm", "-q", "notes/a.md")
    repo.git("commit", "-q", "--no-verify", "-m", "forget")
    repo.write("notes/a.md", b"saved at its path since\n")
    _killed_with_its_bytes_listed(repo, SAME)

    folders_back(repo.root, repo.root / ".git")

    assert (repo.root / "notes" / "a.md").read_bytes() == b"saved at its path since\n"
    beside = [p for p in (repo.root / "notes").iterdir() if p.name != "a.md"]
    assert [p.read_bytes() for p in beside] == [SAME], beside


def test_a_rewritten_note_s_old_bytes_go_beside_an_edit_saved_since_with_no_word_of_the_move_s(
    repo: NotesRepo,
) -> None:
    """The person saved an edit at the path after the move: the old bytes (git holds them) go
    all the same, and the line never says the path holds the move's bytes (it said so)."""
    repo.write("notes/a.md", SAME)
    repo.commit("a note")
    repo.write("notes/a.md", EDITED)
    repo.commit("rewritten")
    repo.write("notes/a.md", b"the person's edit, saved since\n")
    _killed_with_its_bytes_listed(repo, SAME)

    said = folders_back(repo.root, repo.root / ".git")

    assert len(said) == 1 and "the move's" not in said[0], said
    assert (repo.root / "notes" / "a.md").read_bytes() == b"the person's edit, saved since\n"
    assert sorted(p.name for p in (repo.root / "notes").iterdir()) == ["a.md"]
