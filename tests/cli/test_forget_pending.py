"""`memidx forget` of a note not yet committed, while a git hook, the finisher or a `remember`
commits it: the forget deleted the file with no lock, the commit built before that landed, and
the forget said it was done (exit 0) while HEAD held the note, `git status` showed ` D` and no
forget commit came (seen in a chaos run). It takes remember.lock, which those hold: it either
comes first (the note is never committed) or follows the commit (a forget commit)."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.memory.pending_mark import any_pending
from memidx.memory.pending_notes import keep
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)  # as a `remember` leaves it while git is busy
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/main")
    return repo


def test_a_forget_while_its_pending_note_is_committed_follows_the_commit(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_build = commit_module._build  # pyright: ignore[reportPrivateUsage]
    forgets: list[subprocess.Popen[str]] = []

    def forget_meanwhile(*args: object, **kw: object) -> str:
        commit = real_build(*args, **kw)  # type: ignore[arg-type]  # the note read, not in HEAD
        if not forgets:
            forgets.append(
                subprocess.Popen(
                    [str(MEMIDX_BIN), "forget", REF],
                    cwd=repo.root,
                    env=clean_env(MEMIDX_ROOT=str(repo.root)),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            # without the lock it is done long before; with it, it waits for this commit
            with contextlib.suppress(subprocess.TimeoutExpired):
                forgets[0].wait(timeout=2)
        return commit

    monkeypatch.setattr(commit_module, "_build", forget_meanwhile)

    try:
        synced = repo.memidx("sync")  # the pending note committed, as a hook or finisher does
        [forget] = forgets
        out, err = forget.communicate(timeout=60)
    finally:
        for started in forgets:
            if started.poll() is None:
                started.kill()
                started.wait(timeout=10)

    assert synced.code == 0, synced.err
    assert forget.returncode == 0, out + err
    assert repo.git("log", "-2", "--format=%s") == (
        f"memidx forget: {REF}\nmemidx remember: Disk full\n"
    )
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert repo.git("status", "--porcelain") == ""
    assert not (repo.root / REF).exists()


def test_a_forget_before_its_pending_note_is_committed_leaves_nothing_pending(
    repo: NotesRepo,
) -> None:
    forgotten = repo.memidx("forget", REF)

    assert forgotten.code == 0, forgotten.err
    assert not (repo.root / REF).exists()
    assert not any_pending(load_config(repo.root, env={}))
    synced = repo.memidx("sync")
    assert synced.code == 0 and "was removed" not in synced.err, synced.err
    assert repo.git("log", "--format=%s") == "start\n"


def test_a_forget_drops_a_pending_note_whose_file_is_gone(repo: NotesRepo) -> None:
    """A reset took the file away: sync writes it again from its entry; forget is how the
    person drops it, where it said "no note ... in memory" and left it to be written again."""
    (repo.root / REF).unlink()

    forgotten = repo.memidx("forget", REF)

    assert forgotten.code == 0, forgotten.err
    assert not any_pending(load_config(repo.root, env={}))
    synced = repo.memidx("sync")
    assert synced.code == 0 and "written again" not in synced.err, synced.err
    assert not (repo.root / REF).exists()
    assert repo.git("log", "--format=%s") == "start\n"
