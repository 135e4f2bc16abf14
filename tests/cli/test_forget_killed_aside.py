"""`memidx forget` killed (`kill -9`) after it moved the note's file aside (into the move's
folder in the git folder, `memidx-aside-<pid>/<n>`, memidx.git.move_aside; before,
`.<name>.memidx-<pid>` beside it, memidx.git.judged_unlink) and found it unchanged, before its
unlink: the next `memidx status` put the file back at its path, as it does an edit a killed
memidx left aside, and the forgotten note came back untracked, for the person's next `git add
-A`. A file aside with exactly the bytes HEAD's last commit of that path deleted is dropped:
the note stays forgotten. One with other bytes (an edit) still goes back."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli.killed_forget import forget_killed_at_its_aside
from tests.helpers import NotesRepo, started_memory

REF = "notes/ops/deploy.md"


def _asides(repo: NotesRepo) -> list[str]:
    beside = (p.name for p in (repo.root / "notes").rglob(".*memidx-*"))
    return sorted([*beside, *(p.name for p in (repo.root / ".git").glob("memidx-aside-*/*"))])


@pytest.fixture
def killed(tmp_path: Path) -> NotesRepo:
    """A forget killed with the note's file aside, judged unchanged; the move's own shell,
    which outlives it, done."""
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    forget_killed_at_its_aside(repo, REF, tmp_path / "site", folder=True)
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten
    assert not (repo.root / REF).exists() and _asides(repo) == ["0", "paths"]
    deadline = time.monotonic() + 20  # the move's shell lets git's index go
    while (repo.root / ".git" / "index.lock").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return repo


def test_the_note_a_killed_forget_left_aside_stays_forgotten(killed: NotesRepo) -> None:
    status = killed.memidx("status")

    assert status.code == 0, status
    assert not (killed.root / REF).exists(), status.err
    assert _asides(killed) == []
    assert not list((killed.root / ".git").glob("memidx-aside-*"))  # the folder too
    assert f"{REF} stays forgotten" in status.err + status.out, status
    assert killed.git("status", "--porcelain", "-uall") == ""
    assert REF not in killed.git("ls-tree", "-r", "--name-only", "HEAD")


def test_an_edit_a_killed_forget_left_aside_still_goes_back(killed: NotesRepo) -> None:
    (aside,) = (killed.root / ".git").glob("memidx-aside-*/0")
    aside.write_bytes(aside.read_bytes() + b"An edit saved into the file aside.\n")

    status = killed.memidx("status")

    assert status.code == 0, status
    assert (killed.root / REF).read_bytes().endswith(b"An edit saved into the file aside.\n")
    assert _asides(killed) == []
    assert not list((killed.root / ".git").glob("memidx-aside-*"))  # the folder too
    assert killed.git("status", "--porcelain", "-uall") == f"?? {REF}\n"
