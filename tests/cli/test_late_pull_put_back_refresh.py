"""The put-back for a late pull (memidx.git.late_pull) takes git's index back at its paths with
no whole refresh: `git reset -q <old> -- <paths>` refreshed every entry from git 2.36 on (0.4-1.2 s
at 20,000-30,000 stat-touched files, under git's index.lock while the person's pull waited).
Now it is memidx.git.index_refresh's reset (`--no-refresh`, its paths then refreshed alone), in
the put-back's shell and in the one git after the other where there is no shell."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git import late_pull
from memidx.git.commit import literal
from memidx.git.index_refresh import NO_REFRESH_FROM, git_version
from tests.helpers import NotesRepo

OTHER, HELD, NEW = "notes/other.md", "notes/held.md", "notes/new.md"


def _entry_times(repo: NotesRepo, ref: str) -> str:
    listed = repo.git("ls-files", "--debug", "--", ref).splitlines()
    return "\n".join(line.strip() for line in listed if line.strip().startswith(("ctime", "mtime")))


@pytest.mark.parametrize("shell", ["shell", "no shell"])
def test_the_put_back_refreshes_its_paths_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str
) -> None:
    if shell == "shell" and SHELL is None:
        pytest.skip("no POSIX shell")
    if shell == "no shell":  # as on Windows: one git after the other
        monkeypatch.setattr(late_pull, "SHELL", None)
    repo = NotesRepo(tmp_path / "memory")
    repo.note("other.md", "Other", "a note whose stat is touched, its bytes not")
    repo.note("held.md", "Held", "a note memidx's commit changes")
    old = repo.commit("old")
    held = (repo.root / HELD).read_bytes()
    repo.note("held.md", "Held", "a note memidx's commit changed")
    repo.note("new.md", "New", "a note memidx remembered")
    new = repo.commit("memidx's")
    (repo.root / HELD).write_bytes(held)  # its bytes back, as the put-back writes them
    (repo.root / NEW).unlink()  # and its note gone, as it removes it
    seen = (repo.root / OTHER).stat()
    os.utime(repo.root / OTHER, ns=(seen.st_atime_ns, seen.st_mtime_ns + 5_000_000_000))
    before = _entry_times(repo, OTHER)

    put = late_pull._put_back(repo.root, "refs/heads/main", new, old, literal([NEW, HELD]))  # pyright: ignore[reportPrivateUsage]

    assert put == 0
    assert repo.git("rev-parse", "HEAD").strip() == old
    assert repo.git("ls-files", "--", NEW) == ""
    assert repo.git("diff-files", "--name-only") == f"{OTHER}\n"  # HELD's entry has its stat
    if git_version() >= NO_REFRESH_FROM:  # before 2.36 `reset -q` refreshed nothing anyway
        assert _entry_times(repo, OTHER) == before  # not read again: no whole refresh
    assert repo.git("status", "--porcelain") == ""
