"""A purge's commit of another clone's segment it blanked (README, "Forget and purge") that
cannot be made: a hook of the person's refuses it, git cannot write its objects, another git
holds the index. Nothing changes (HEAD, the person's staged and unstaged changes, the segment
file), the error is one line saying what failed, exit 1, and a later purge finishes the job.
A pre-commit or commit-msg hook never runs for memidx's plumbing commits: it cannot stop one.

One clone set-up serves every case: a purge that fails changes nothing, so the next case
starts from the same state, and the last test purges for good."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import pytest

from memidx.git import commit as commit_module
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo, clean_env


@dataclass(frozen=True, slots=True)
class Peer:
    """Clone two, which pulled clone one's segment and forgot a record of it."""

    two: NotesRepo
    segment: str  # the peer's segment, as git names it


def _file(repo: NotesRepo, text: str) -> str:
    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err
    return str(run.json()["id"])


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Peer:
    one, two = clones(tmp_path_factory.mktemp("peer"))
    for repo in (one, two):  # memidx's own processes commit: an identity of the clone's own
        repo.git("config", "user.name", "memidx tests")  # (CI's HOME has no git config)
        repo.git("config", "user.email", "tests@memidx.invalid")
        assert repo.memidx_process("ingest").code == 0
    gone = _file(one, "giraffe turn filed by one")
    _file(one, "okapi turn filed by one")
    assert one.memidx_process("haystack", "commit").code == 0
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx_process("sync").code == 0
    assert two.memidx_process("forget", gone).code == 0
    assert two.memidx_process("haystack", "commit").code == 0  # the tombstone: nothing else
    two.note("staged.md", "Staged", "a note the person staged")
    two.git("add", "notes/staged.md")
    (two.root / "notes" / "seed.md").write_text("an edit the person has not staged\n")
    [segment] = [
        p.relative_to(two.root).as_posix()
        for p in (two.root / "notes" / "haystack").glob("*/*.krd")
        if b"giraffe" in p.read_bytes()
    ]
    return Peer(two, segment)


def _state(repo: NotesRepo, segment: str) -> tuple[str, ...]:
    """What a failed purge must leave as it was: HEAD, the person's staged and unstaged
    changes, what git's index stages, and the segment file's bytes."""
    return (
        repo.git("rev-parse", "HEAD"),
        repo.git("diff", "--cached", "--binary"),
        repo.git("diff", "--binary"),
        repo.git("ls-files", "--stage"),
        repo.git("status", "--porcelain", "--untracked-files=all"),
        (repo.root / segment).read_bytes().hex(),
    )


def _leftovers(repo: NotesRepo) -> list[str]:
    """memidx's temporary files a failed commit must not leave: an index, a purge's draft."""
    git_dir = repo.root / ".git"
    found = [p.name for p in git_dir.glob("memidx-commit-*")]
    return found + [p.name for p in (repo.root / "notes").rglob(".*.purge")]


def _blob(repo: NotesRepo, name: str) -> bytes:
    shown = subprocess.run(
        ["git", "show", name], cwd=repo.root, env=clean_env(), capture_output=True, check=True
    )
    return shown.stdout


def _hook(repo: NotesRepo, name: str, body: str) -> Path:
    hook = repo.root / ".git" / "hooks" / name
    hook.write_text(f"#!/bin/sh\n{body}\n")
    hook.chmod(0o755)
    return hook


@contextmanager
def _read_only(folder: Path) -> Generator[None]:
    """`folder` and every folder in it cannot be written: chmod, or for root (whom chmod
    does not stop) the immutable flag; skipped where neither stops a write."""
    folders = [folder, *(p for p in folder.rglob("*") if p.is_dir())]
    if os.geteuid() != 0:
        for one in folders:
            one.chmod(0o555)
        undo = [lambda one=one: one.chmod(0o755) for one in folders]
    else:
        flagged = subprocess.run(["chattr", "+i", *map(str, folders)], capture_output=True,
                                 check=False)  # fmt: skip
        undo = [lambda: subprocess.run(["chattr", "-i", *map(str, folders)], check=True)]
        if flagged.returncode != 0:
            undo[0]()
            pytest.skip("this file system has no immutable flag, and root ignores chmod")
    try:
        yield
    finally:
        for step in undo:
            step()


def _purge_fails(peer: Peer, *, says: str) -> None:
    """A purge run now fails in one line saying `says`, exit 1, and changes nothing."""
    two = peer.two
    before = _state(two, peer.segment)

    run = two.memidx("haystack", "purge", "--json")

    assert run.code == 1, run.out + run.err
    errors = [line for line in run.err.splitlines() if line.startswith("memidx: error:")]
    assert len(errors) == 1 and says in errors[0], run.err
    assert "keep their bytes" in errors[0] and "run memidx haystack purge again" in errors[0]
    assert "Traceback" not in run.err
    assert _state(two, peer.segment) == before
    assert b"giraffe" in (two.root / peer.segment).read_bytes()
    assert b"giraffe" in _blob(two, f"HEAD:{peer.segment}")
    assert _leftovers(two) == []


def test_objects_git_cannot_write_change_nothing(
    peer: Peer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's objects folder cannot be written from the moment the purge commits (before it,
    purge stores blanked blobs itself: it would fail there, as early, changing nothing). The
    first case: once another case has built the commit's trees, and in the same second its
    commit, git has nothing left to write."""
    commit_paths = commit_module.commit_paths

    def read_only_then_commit(*args: object, **kwargs: object) -> str:
        with _read_only(peer.two.root / ".git" / "objects"):
            return commit_paths(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(commit_module, "commit_paths", read_only_then_commit)
    _purge_fails(peer, says="was not committed: the repository cannot be written")


def test_a_reference_transaction_hook_that_refuses_changes_nothing(peer: Peer) -> None:
    hook = _hook(peer.two, "reference-transaction", "echo no commits today >&2; exit 1")
    try:
        _purge_fails(peer, says="transaction hook refused to move HEAD (it said: no commits today)")
    finally:
        hook.unlink()


def test_an_index_another_git_holds_changes_nothing(
    peer: Peer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another git takes the index lock as the purge is about to commit, and keeps it."""
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 0.5)
    lock = peer.two.root / ".git" / "index.lock"
    commit_paths = commit_module.commit_paths

    def locked_then_commit(*args: object, **kwargs: object) -> str:
        lock.write_bytes(b"")
        holding.append(lock.open("rb"))  # a live process holds it: never taken for stale
        return commit_paths(*args, **kwargs)  # type: ignore[arg-type]

    holding: list[BinaryIO] = []
    monkeypatch.setattr(commit_module, "commit_paths", locked_then_commit)
    try:
        _purge_fails(peer, says="git kept its index locked")
    finally:
        for held in holding:
            held.close()
        lock.unlink(missing_ok=True)


def test_a_later_purge_commits_it_and_the_persons_hooks_never_run(peer: Peer) -> None:
    """After the failures, a purge with the person's pre-commit and commit-msg hooks refusing
    every commit: memidx's plumbing commit runs neither, and the person's changes stay."""
    two = peer.two
    hooks = [_hook(two, name, "exit 1") for name in ("pre-commit", "commit-msg")]
    staged, unstaged = two.git("diff", "--cached"), two.git("diff")

    run = two.memidx("haystack", "purge", "--json")

    for hook in hooks:
        hook.unlink()
    assert run.code == 1 and run.json()["other_writers"] == [peer.segment], run.err
    assert b"giraffe" not in (two.root / peer.segment).read_bytes()
    assert b"giraffe" not in _blob(two, f"HEAD:{peer.segment}")
    assert two.git("diff", "--cached") == staged and two.git("diff") == unstaged
    assert two.git("status", "--porcelain", "--", peer.segment) == ""
    assert subprocess.run(
        ["git", "diff", "--quiet", "HEAD~1", "HEAD", "--", "notes/seed.md", "notes/staged.md"],
        cwd=two.root, env=clean_env(), check=False,
    ).returncode == 0  # fmt: skip
