"""The chaos bench's own bookkeeping: a record the remote holds twice is found, and an
operation is marked failed only for a failure of its own actor, not one another actor of the
same clone met meanwhile; what `git status` shows at the end is a leftover."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

from memidx.haystack.frames import frame, new_record
from tests.benchmark import chaos
from tests.benchmark.fleet import git, tree
from tests.helpers import clean_env

WAIT = 10.0  # seconds one actor waits for the other's failure, at most


def test_a_record_two_segments_hold_is_named_twice(tmp_path: Path) -> None:
    env = clean_env(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / ".config"))
    root = tmp_path / "repo"
    folder = root / "notes" / "haystack" / "w1"
    folder.mkdir(parents=True)
    once, twice = new_record("turn", "filed once"), new_record("turn", "filed twice")
    (folder / "2026-01-01.000.krd").write_bytes(frame(once) + frame(twice))
    (folder / "2026-01-01.001.krd").write_bytes(frame(twice))  # a merge brought it back
    git(root, env, "init", "-q", "-b", "main")
    git(root, env, "add", "notes")
    git(root, env, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "log")
    held = tree(root / ".git", env)
    assert held.records == {once.id, twice.id}
    assert held.twice == {twice.id}


def test_an_operation_is_failed_by_its_own_actor_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Actor 1's operation ends while actor 2's fails in the middle of it: actor 1's is
    logged "ends" (it was "failed": the mark compared the clone's count of failures)."""
    m = chaos.Machine(0, tmp_path, {}, random.Random(1), 1)
    failed = threading.Event()

    def step(m: chaos.Machine, op: str) -> None:
        if threading.current_thread().name == "fine":
            assert failed.wait(WAIT)
        else:
            m.fail(op, "refused")
            failed.set()

    monkeypatch.setattr(chaos, "step", step)
    monkeypatch.setattr(chaos, "ORDER", [])
    fine = threading.Thread(target=chaos.drive, args=(m, chaos.ACTORS, 1), name="fine")
    failing = threading.Thread(target=chaos.drive, args=(m, chaos.ACTORS, 2), name="failing")
    fine.start()
    failing.start()
    fine.join(WAIT)
    failing.join(WAIT)
    ended = {line.split()[2]: line.split()[-1] for line in chaos.ORDER if "starts" not in line}
    assert ended == {"a1": "ends", "a2": "failed"}


def test_a_note_deleted_in_the_work_tree_alone_is_a_leftover(tmp_path: Path) -> None:
    """` D notes/x.md` at the end (HEAD and git's index hold it, the work tree does not): the
    person's next `git commit -a` deletes a note no one forgot; the bench did not look."""
    from tests.benchmark.chaos_finish import leftovers

    env = clean_env(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / ".config"))
    root = tmp_path / "repo"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "kept.md").write_text("# Kept\n")
    (root / "notes" / "gone.md").write_text("# Gone\n")
    git(root, env, "init", "-q", "-b", "main")
    git(root, env, "add", "notes")
    git(root, env, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "notes")
    m = chaos.Machine(0, root, env, random.Random(1), 1)
    assert leftovers(m) == set()
    (root / "notes" / "gone.md").unlink()
    assert leftovers(m) == {" D notes/gone.md"}


def test_a_staged_rename_is_one_leftover_with_both_names(tmp_path: Path) -> None:
    """`git status -z` writes a rename's original path as a field of its own: it was read as
    an entry, `no es/old.md` (its first letters taken for a status), a leftover no git
    shows, and the rename itself lost its old name."""
    from tests.benchmark.chaos_finish import leftovers, status_entries

    env = clean_env(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / ".config"))
    root = tmp_path / "repo"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "old.md").write_text("# Old\n\na note long enough to be a rename\n")
    (root / "notes" / "kept.md").write_text("# Kept\n")
    git(root, env, "init", "-q", "-b", "main")
    git(root, env, "add", "notes")
    git(root, env, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "notes")
    git(root, env, "mv", "notes/old.md", "notes/new.md")
    (root / "notes" / "kept.md").unlink()
    m = chaos.Machine(0, root, env, random.Random(1), 1)
    assert leftovers(m) == {"R  notes/old.md -> notes/new.md", " D notes/kept.md"}
    raw = "C  b c.md\0a.md\0?? x y.md\0RM to.md\0from.md\0"
    assert status_entries(raw) == {"C  a.md -> b c.md", "?? x y.md", "RM from.md -> to.md"}


def test_a_note_whose_forget_landed_after_its_error_is_told_from_a_lost_one(
    tmp_path: Path,
) -> None:
    """A forget that said "not forgotten" (exit 1) and whose commit a `pull --rebase` applied
    after all: the note is gone by memidx's forget, a broken word, not a lost note."""
    from tests.benchmark.chaos_finish import forgot_after_all

    env = clean_env(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / ".config"))
    root = tmp_path / "repo"
    (root / "notes").mkdir(parents=True)
    for name in ("forgot.md", "lost.md"):
        (root / "notes" / name).write_text(f"# {name}\n")
    who = ("-c", "user.name=t", "-c", "user.email=t@t")
    git(root, env, "init", "-q", "-b", "main")
    git(root, env, "add", "notes")
    git(root, env, *who, "commit", "-q", "-m", "notes")
    git(root, env, "rm", "-q", "notes/forgot.md")
    git(root, env, *who, "commit", "-q", "-m", "memidx forget: notes/forgot.md")
    git(root, env, "rm", "-q", "notes/lost.md")
    git(root, env, *who, "commit", "-q", "-m", "a merge that dropped it")
    assert forgot_after_all(root / ".git", env, "notes/forgot.md")
    assert not forgot_after_all(root / ".git", env, "notes/lost.md")
