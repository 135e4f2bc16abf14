"""`memidx haystack purge` and a person's `git commit` in the same clone at the same moment, with
real git: the purge rebuilds local commits and moves HEAD, which must never make the person's
commit fail ("cannot lock ref 'HEAD': is at X but expected Y") nor move HEAD from under it; when
HEAD cannot move in time the purge says so and changes nothing, so the next purge does it all."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from memidx.config import load_config
from memidx.errors import GitError
from memidx.git import commit as commit_module
from memidx.git import lock_holders
from memidx.git import rewrite as rewrite_module
from memidx.haystack import purge as purge_module
from memidx.haystack.purge import purge
from tests.cli.test_commit_race import LOADED_WAIT, held_by_someone, memory, person_commits
from tests.cli.test_forget import reachable_bytes
from tests.helpers import NotesRepo

__all__ = ["memory"]  # the fixture: a memory whose pre-commit hook is as slow as a person's

SECRET = b"zebra secret turn"


def forgotten_turn(repo: NotesRepo) -> None:
    """A committed (unpushed) turn holding SECRET, forgotten: its bytes wait for a purge. Set
    up in-process (three processes cost ~0.6 s of CPU more); the purges race as processes."""
    run = repo.memidx("file-turn", stdin=json.dumps({"text": SECRET.decode()}))
    assert run.code == 0, run.err
    assert repo.memidx("haystack", "commit").code == 0
    assert repo.memidx("forget", run.out.strip()).code == 0


def segments(repo: NotesRepo) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((repo.root / "notes").rglob("*.krd")))


def unchanged(repo: NotesRepo) -> bool:
    """Nothing but new segments (the tombstone's) in `git status`: git's index and the work
    tree hold what HEAD holds."""
    status = repo.git("status", "--porcelain").splitlines()
    return all(line.startswith("?? notes/haystack/") for line in status)


def in_history(repo: NotesRepo) -> bool:
    """Whether SECRET is in an object a ref or HEAD reaches (the reflog aside)."""
    return SECRET in reachable_bytes(repo)


@pytest.mark.parametrize("theirs", [[], ["--", "notes/person.md"]], ids=["plain", "of-paths"])
def test_a_person_who_commits_while_purge_rebuilds_the_commits_loses_nothing(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch, theirs: list[str]
) -> None:
    forgotten_turn(memory)
    started: list[subprocess.Popen[str]] = []
    rebuilt = rewrite_module._rebuilt  # pyright: ignore[reportPrivateUsage]

    def rebuilt_then_the_person_commits(*args: object, **kwargs: object) -> str:
        commit = rebuilt(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        if not started:  # after purge read HEAD, before it moves it
            started.append(person_commits(memory, theirs))
        return commit

    monkeypatch.setattr(rewrite_module, "_rebuilt", rebuilt_then_the_person_commits)
    # the person's commit is waited for, however long a loaded machine makes it: past
    # purge's 2 s (LOCKED_WAIT), CI-like load (the pre-commit hook's 1.5 s and git's start)
    # said GitBusy here, "git kept its index locked" or "a git commit is still under way"
    monkeypatch.setattr(purge_module, "LOCKED_WAIT", LOADED_WAIT)

    done = purge(load_config(memory.root, env={}))

    person = started[0]
    _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err  # not "cannot lock ref 'HEAD'"
    assert memory.git("log", "-1", "--format=%s").strip() == "person's note"
    assert "written by hand" in memory.git("show", "HEAD:notes/person.md")
    assert sum(done.blanked.values()) == 1 and done.rewritten_commits >= 2
    assert not in_history(memory) and SECRET not in segments(memory)
    assert unchanged(memory)


def test_a_purge_that_cannot_move_head_in_time_changes_nothing(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    forgotten_turn(memory)
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 0.5)
    monkeypatch.setattr(lock_holders, "_held_by_nobody", held_by_someone)
    head, before = memory.git("rev-parse", "HEAD").strip(), segments(memory)
    lock = memory.root / ".git" / "index.lock"
    lock.write_text("held by a person's git commit")
    started = time.monotonic()

    with pytest.raises(GitError, match="index locked; the unpushed commits were not rewritten"):
        purge(load_config(memory.root, env={}))

    assert time.monotonic() - started < 5
    assert memory.git("rev-parse", "HEAD").strip() == head and segments(memory) == before
    lock.unlink()
    assert unchanged(memory)
    done = purge(load_config(memory.root, env={}))  # the next purge finds it all still to do
    assert sum(done.blanked.values()) == 1 and done.rewritten_commits >= 1
    assert not in_history(memory) and SECRET not in segments(memory)


def test_the_purge_leaves_a_head_that_moved_since_it_was_read(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit that lands between purge's read of HEAD and its move (no index lock, no git
    process left to see): purge builds again on it rather than overwriting it."""
    forgotten_turn(memory)
    rebuilt = rewrite_module._rebuilt  # pyright: ignore[reportPrivateUsage]
    landed: list[str] = []

    def rebuilt_then_a_commit_lands(*args: object, **kwargs: object) -> str:
        commit = rebuilt(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        if not landed:
            ref = memory.note("late.md", "Late note", "landed meanwhile")
            landed.append(memory.commit(f"late: {ref}"))
        return commit

    monkeypatch.setattr(rewrite_module, "_rebuilt", rebuilt_then_a_commit_lands)

    purge(load_config(memory.root, env={}))

    assert memory.git("log", "-1", "--format=%s").strip() == "late: notes/late.md"
    assert not in_history(memory) and SECRET not in segments(memory)
    assert "landed meanwhile" in memory.git("show", "HEAD:notes/late.md")


def test_a_purge_killed_as_head_moves_leaves_no_forgotten_bytes_staged(memory: NotesRepo) -> None:
    """purge moves HEAD to the rebuilt commits, then points git's index at their blanked
    segments: a `kill -9` in between left the old blobs staged, for a person's next `git
    commit` to put the forgotten bytes back into history. What follows the move runs on in
    the git that moved HEAD; the work-tree file, as it was, waits for the next purge."""
    forgotten_turn(memory)
    head = memory.git("rev-parse", "HEAD").strip()

    memory.memidx_killed_as_head_moves("haystack", "purge")

    deadline = time.monotonic() + 10  # the git that moved HEAD may still be at work
    while memory.git("diff", "--cached", "--name-only").strip() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert memory.git("diff", "--cached", "--name-only").strip() == ""
    assert memory.git("rev-parse", "HEAD").strip() != head and not in_history(memory)
    memory.git("commit", "-q", "--no-verify", "--allow-empty", "-m", "a person's next commit")
    assert not in_history(memory)
    assert memory.memidx_process("haystack", "purge").code == 0
    assert SECRET not in segments(memory) and unchanged(memory)
