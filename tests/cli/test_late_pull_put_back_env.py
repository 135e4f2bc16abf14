"""The put-back for a late pull (memidx.git.late_pull) runs its gits in the clone memidx moved,
never in the repository a hook caller's GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE names: where
there is no shell (Windows: one git after the other), its gits took os.environ as it was, so
the ref was looked for, and the index reset, in the caller's repository: nothing put back, and
the person's pull failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git import late_pull
from memidx.git.commit import literal
from tests.helpers import NotesRepo

NEW = "notes/new.md"


@pytest.mark.parametrize("shell", ["shell", "no shell"])
def test_the_put_back_runs_in_its_clone_whatever_git_dir_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str
) -> None:
    if shell == "shell" and SHELL is None:
        pytest.skip("no POSIX shell")
    if shell == "no shell":  # as on Windows: one git after the other
        monkeypatch.setattr(late_pull, "SHELL", None)
    repo = NotesRepo(tmp_path / "memory")
    repo.note("seed.md", "Seed", "a note the clone holds")
    old = repo.commit("old")
    repo.note("new.md", "New", "a note memidx remembered")
    new = repo.commit("memidx's")
    (repo.root / NEW).unlink()  # as the put-back removes it
    caller = NotesRepo(tmp_path / "caller")  # the repository whose hook runs memidx
    caller.note("theirs.md", "Theirs", "the caller's own note")
    caller.commit("theirs")
    theirs = caller.git("rev-parse", "HEAD")
    staged = caller.git("ls-files", "-s")
    monkeypatch.setenv("GIT_DIR", str(caller.root / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(caller.root))
    monkeypatch.setenv("GIT_INDEX_FILE", str(caller.root / ".git" / "index"))

    put = late_pull._put_back(repo.root, "refs/heads/main", new, old, literal([NEW]))  # pyright: ignore[reportPrivateUsage]

    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert put == 0
    assert repo.git("rev-parse", "HEAD").strip() == old
    assert repo.git("ls-files", "--", NEW) == ""
    assert repo.git("status", "--porcelain") == ""
    assert (caller.git("rev-parse", "HEAD"), caller.git("ls-files", "-s")) == (theirs, staged)
