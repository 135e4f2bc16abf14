"""A pending note whose commit on its own branch did not land (side_commit.commit_on's None:
the branch checked out, or deleted, as memidx committed it there) waits, and the command that
tried says so in its answer: it was said by `memidx status` alone, `memidx sync` quiet and
`remember` answering "committed once that git command ends" of a note that waited for none."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.git import side_commit
from memidx.memory import remember as remember_module
from memidx.memory.pending_notes import keep
from memidx.memory.remember import remember
from tests.helpers import NotesRepo, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
BODY = "The build cache is keyed by the lock file; touch it to rebuild from scratch.\n"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("switch", "-q", "-c", "feature")  # as a `remember` on main left it, git busy
    return repo


def _meanwhile(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, *git: str) -> None:
    """The person's `git <git>` as memidx builds the note's commit on main."""
    real_build = side_commit._build  # pyright: ignore[reportPrivateUsage]

    def person(config: Config, tip: str, ref: str, blob: str, subject: str) -> str:
        repo.git(*git)
        return real_build(config, tip, ref, blob, subject)

    monkeypatch.setattr(side_commit, "_build", person)


def test_sync_says_a_note_whose_branch_went_as_it_was_committed_waits(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _meanwhile(repo, monkeypatch, "branch", "-q", "-D", "main")
    synced = repo.memidx("sync")
    assert synced.code == 0, synced.err
    assert (
        f"memidx: warning: {REF} is not committed yet: main was deleted as memidx committed "
        "it there: the next `memidx sync` (or `remember`, or a git hook) here commits it on "
        "the branch checked out\n"
    ) in synced.err, synced.err
    assert repo.memidx("status", "--json").json()["pending_notes"][0]["path"] == REF
    assert repo.memidx("sync").code == 0  # as said: on the branch checked out
    assert repo.git("show", f"feature:{REF}") == TEXT


def test_remember_says_why_an_older_note_and_its_own_wait(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The older note (main's) is committed first; main checked out in another work tree as
    its commit is made: taken back, it waits, and the remember's answer says so."""
    _meanwhile(repo, monkeypatch, "worktree", "add", "-q", str(tmp_path / "other"), "main")
    said: list[str] = []
    done = remember(load_config(repo.root, env={}), "Build cache", BODY, notice=said.append)
    assert done.commit is not None  # its own, on feature
    assert said[0].startswith(
        f"warning: {REF} is not committed yet: its branch, main, is checked out in another "
        f"work tree ({tmp_path / 'other'})"
    ), said


def test_remembers_answer_says_why_its_own_note_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git switch feature` as memidx commits the note on main, then main deleted as memidx
    commits it there from feature: the answer (and its JSON's `pending`) said "committed once
    that git command ends", of a note whose branch is gone."""
    from memidx.git import commit as commit_module
    from memidx.memory.json_objects import remember_data

    repo = started_memory(tmp_path)
    repo.git("branch", "feature")
    build = commit_module._build  # pyright: ignore[reportPrivateUsage]

    def switching(*args: object, **kwargs: object) -> str:
        if repo.git("symbolic-ref", "HEAD") == "refs/heads/main\n":
            repo.git("switch", "-q", "feature")
        return build(*args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(commit_module, "_build", switching)
    _meanwhile(repo, monkeypatch, "branch", "-q", "-D", "main")
    started: list[Path] = []  # no detached finisher: the sync below commits it, in the test

    def no_finisher(config: Config, _: object) -> None:
        started.append(config.root)

    monkeypatch.setattr(remember_module, "start_finisher", no_finisher)
    said: list[str] = []
    done = remember(load_config(repo.root, env={}), "Build cache", BODY, notice=said.append)
    line = (
        "notes/build-cache.md is kept (no file yet) but not committed yet: HEAD left main "
        "meanwhile (main was deleted as memidx committed it there: the next `memidx sync` (or "
        "`remember`, or a git hook) here commits it on the branch checked out; do not "
        "remember it again)"
    )
    assert done.commit is None and said == [line], said
    assert remember_data(done)["pending"] == line and started == [repo.root]
    assert repo.memidx("sync").code == 0  # as said
    assert "notes/build-cache.md" in repo.git("ls-tree", "-r", "--name-only", "feature")


def test_sync_says_a_note_whose_branch_came_back_as_it_looked_waits(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's `git switch main` back after sync read HEAD (feature): main is found checked
    out, here, and the note waits; sync said nothing (in a remember: "committed once that git
    command ends")."""
    from memidx.git import checkouts

    look = checkouts.checked_out_elsewhere

    def switched_back(root: Path, branch: str) -> Path | None:
        repo.git("switch", "-q", "main")
        return look(root, branch)

    monkeypatch.setattr(checkouts, "checked_out_elsewhere", switched_back)
    synced = repo.memidx("sync")
    assert (
        f"memidx: warning: {REF} is not committed yet: main is checked out here again (a git "
        "switch back meanwhile): the next `memidx sync` (or `remember`, or a git hook) here "
        "commits it on main\n"
    ) in synced.err, synced.err
    monkeypatch.undo()
    assert repo.memidx("sync").code == 0  # as said
    assert repo.git("show", f"main:{REF}") == TEXT
