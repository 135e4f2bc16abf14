"""Where a torn copy of a forgotten record's text may be left after `memidx haystack purge`
(README, "Forget and purge"): a purge stopped before it reached the `.torn` files (a full disk)
must leave them for the next, which finds the text's hash only while a segment still holds
the record; and another work tree's `.memidx/torn`, not named with --work-tree, is held."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.haystack import purge_torn
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import frame, new_record
from tests.helpers import NotesRepo

SECRET = "the staging database password is walrus-7781-tangerine"


def torn_then_whole(repo: NotesRepo) -> tuple[str, Path]:
    """A filing of SECRET a crash cut 20 bytes short, moved into `.memidx/torn/` by the
    next filing: SECRET again, whole, under a new id; that id and the `.torn` file."""
    writer = clone_writer(load_config(repo.root))
    segment, _, _ = writer.append(new_record("turn", "an earlier turn"))
    segment.write_bytes(segment.read_bytes() + frame(new_record("turn", SECRET))[:-20])
    again = new_record("turn", SECRET)
    writer.append(again)
    (torn,) = (repo.root / ".memidx" / "torn").glob("*.torn")
    return again.id, torn


def forgotten(repo: NotesRepo) -> tuple[str, Path]:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    gone, torn = torn_then_whole(repo)
    assert repo.memidx("sync").code == 0
    assert repo.memidx("forget", gone).code == 0
    return gone, torn


def test_a_purge_stopped_at_the_torn_files_leaves_them_for_the_next(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, torn = forgotten(repo)

    def full(path: Path, data: bytes, kind: str, *, durable: bool) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    with monkeypatch.context() as patched:
        patched.setattr(purge_torn, "replace_durably", full)
        assert repo.memidx("haystack", "purge").code == 1
    assert SECRET.encode() in torn.read_bytes()

    again = repo.memidx("haystack", "purge", "--json")

    assert again.code == 0, again.err
    assert SECRET.encode() not in torn.read_bytes()


def test_a_torn_copy_in_another_work_tree_not_named_is_held(
    repo: NotesRepo, tmp_path: Path
) -> None:
    gone, _ = forgotten(repo)
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", "-b", "feature", str(other))
    there = other / ".memidx" / "torn"
    there.mkdir(parents=True)
    (there / "2026-01-01.000.krd.torn").write_bytes(frame(new_record("turn", SECRET))[:-20])

    purged = repo.memidx("haystack", "purge", "--json")

    assert purged.code == 1, purged.out
    held = purged.json()["held"]
    assert [h["run"] for h in held] == [f"memidx haystack purge --work-tree {other}"], held
    assert gone not in json.dumps(held)
