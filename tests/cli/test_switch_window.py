"""A person's `git switch` is never refused because memidx is mid-commit: a note's file comes
into the work tree with its commit (memory/fresh_note.py), never untracked before it. Written
first, it failed a switch made in memidx's window, "untracked working tree files would be
removed by checkout" (21 of 600 switches beside 24 remembers)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.memory.pending_notes import commit_pending, keep, pending
from memidx.memory.remember import remember
from tests.helpers import NotesRepo

BODY = "The cache server keeps a warm copy of each build so that later builds reuse it.\n"
MAIN = "refs/heads/main"
REF = "notes/build-cache.md"
SIDE = "# Build cache on side\n\nThe side branch keeps its own note here.\n"
TEXT = "---\ntitle: Build cache\ncreated: '2026-12-06'\n---\n\n" + BODY


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/seed.md", "# Seed\n\nThe first note.\n")
    repo.commit("start")
    repo.git("branch", "side")
    return repo


def test_a_switch_while_memidx_commits_is_not_refused_and_the_note_lands_on_its_branch(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`side` holds another file at the note's path. Written before its commit, the note lay
    untracked there, and the person's `git switch side` while memidx built the commit was
    refused: "untracked working tree files would be overwritten by checkout". (A switch in the
    move itself meets memidx's index.lock, as during a git merge: memidx/git/move_script.py.)"""
    from memidx.git import commit as commit_module

    repo.git("switch", "-q", "side")
    repo.write(REF, SIDE)
    repo.commit("side's own build cache note")
    repo.git("switch", "-q", "main")
    said: list[str] = []
    build = commit_module._build  # pyright: ignore[reportPrivateUsage]

    def switching(*args: object, **kwargs: object) -> str:
        if not said:  # the person's switch, once, while memidx builds the commit
            run = ["git", "switch", "-q", "side"]
            out = subprocess.run(run, cwd=repo.root, capture_output=True, text=True, check=False)
            said.append(f"{out.stderr}exit {out.returncode}")
        return build(*args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(commit_module, "_build", switching)
    done = remember(load_config(repo.root, env={}), "Build cache", BODY, notice=print)
    assert said == ["exit 0"]  # was: "would be overwritten by checkout", exit 1
    assert repo.git("branch", "--show-current").strip() == "side"
    assert done.ref == REF and done.commit is not None
    assert repo.git("show", f"main:{REF}").endswith(BODY)  # on main, as remembered
    assert repo.git("status", "--porcelain") == ""  # nothing of it on side
    assert (repo.root / REF).read_text(encoding="utf-8") == SIDE
    repo.git("switch", "-q", "main")  # and the switch back is not refused either
    assert repo.git("status", "--porcelain") == ""
    assert (repo.root / REF).read_text(encoding="utf-8").endswith(BODY)


def test_a_note_is_not_in_the_work_tree_before_its_commit(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the person's git sees while memidx builds the commit: nothing of the note."""
    from memidx.git import commit as commit_module

    seen: list[str] = []
    build = commit_module._build  # pyright: ignore[reportPrivateUsage]

    def looked(*args: object, **kwargs: object) -> str:
        seen.append(repo.git("status", "--porcelain", "--untracked-files=all"))
        return build(*args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(commit_module, "_build", looked)
    done = remember(load_config(repo.root, env={}), "Build cache", BODY, notice=print)
    assert seen == [""] and done.commit is not None
    assert repo.git("status", "--porcelain") == ""
    assert repo.git("show", f"HEAD:{done.ref}").endswith(BODY)


def _unwritten(repo: NotesRepo) -> Config:
    """A note kept unwritten, as a `remember` killed while it waited for git leaves it."""
    config = load_config(repo.root, env={})
    keep(config, REF, "Build cache", TEXT, MAIN, unwritten=True)
    return config


def test_a_note_left_unwritten_by_a_killed_remember_is_written_with_its_commit(
    repo: NotesRepo,
) -> None:
    config = _unwritten(repo)
    assert pending(config)[0].unwritten
    done = commit_pending(config, None, print)
    assert list(done.commits) == [REF] and pending(config) == []
    assert (repo.root / REF).read_text(encoding="utf-8") == TEXT
    assert repo.git("status", "--porcelain") == ""


def test_a_note_left_unwritten_for_a_branch_not_checked_out_is_never_written_here(
    repo: NotesRepo,
) -> None:
    config = _unwritten(repo)
    repo.git("switch", "-q", "side")
    said: list[str] = []
    done = commit_pending(config, None, said.append)
    assert list(done.elsewhere) == [REF] and pending(config) == []
    assert repo.git("show", f"main:{REF}") == TEXT
    assert not (repo.root / REF).exists() and repo.git("status", "--porcelain") == ""
    assert "its file was never written in this work tree" in said[0]
    repo.git("switch", "-q", "main")
    assert (repo.root / REF).read_text(encoding="utf-8") == TEXT


def test_a_note_whose_commit_fails_is_kept_on_disk(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Committed from its bytes, a note whose commit failed (no author identity, a hook that
    refuses) was never written: the file must be there, as the error says ("the file is kept")."""
    from memidx.errors import GitError
    from memidx.git import commit as commit_module

    def refused(*_: object, **__: object) -> str:
        raise GitError("git refused the commit", "fix it")

    monkeypatch.setattr(commit_module, "_build", refused)
    with pytest.raises(GitError):
        remember(load_config(repo.root, env={}), "Build cache", BODY, notice=print)
    assert (repo.root / "notes" / "build-cache.md").read_text(encoding="utf-8").endswith(BODY)
    assert pending(load_config(repo.root, env={})) == []
