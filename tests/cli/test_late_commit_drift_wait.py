"""A person's `git commit` that starts as memidx moves HEAD: memidx, holding its `following`
lock, waits for that git to end (memidx/git/late.py: settle) before it brings the index to
HEAD, and the commit's drift check, finding the index behind with a memidx command following,
waits for that follow (memidx/githooks/drift_wait.py): each waited for the other until one gave
up, the check after FOLLOW_WAIT (10 s) or settle at its deadline (10 s for a remember). The
check sees that memidx waits for the very git it runs under and goes on at once, as it does
once its wait is over (the commit goes on without the drift check, said), so neither waits."""

from __future__ import annotations

import contextlib
import statistics
import subprocess
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git.late import StillUnderWay, settle
from memidx.git.publish import committers
from memidx.index.following import following
from tests.cli.test_share_fetch_race import wait_for
from tests.helpers import GIT_IDENTITY, MEMIDX_BIN, NotesRepo, clean_env

ENGLISH = "The file lock is held by another process on Windows, so nobody can write any more."
MUTUAL = 10.0  # seconds each side waited for the other (FOLLOW_WAIT, a remember's WAIT_SECONDS)


def _memory(root: Path) -> NotesRepo:
    repo = NotesRepo(root)
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    hook = repo.root / ".git" / "hooks" / "pre-commit"  # the person's drift check
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f'#!/bin/sh\ntouch "{root}.in"\nexec "{MEMIDX_BIN}" check drift\n')
    hook.chmod(0o755)
    return repo


def _mutual_wait(repo: NotesRepo) -> tuple[float, subprocess.CompletedProcess[str]]:
    """memidx's side as a remember runs it: `following` held, HEAD moved, the person's commit
    started right then (its check under way), settle waiting for it; then the index follows.
    The seconds settle waited, and the person's commit."""
    config = load_config(repo.root, env={})
    mark = Path(f"{repo.root}.in")
    mark.unlink(missing_ok=True)
    ref = f"notes/remembered-{time.monotonic_ns()}.md"
    with following(config):
        repo.note(ref.removeprefix("notes/"), "Remembered", ENGLISH)
        repo.git("add", ref)
        repo.git("commit", "-q", "--no-verify", "-m", "memidx remember: Remembered")
        commit = repo.git("rev-parse", "HEAD").strip()
        repo.write(f"mine-{time.monotonic_ns()}.txt", "the person's work\n")
        env = clean_env(MEMIDX_ROOT=str(repo.root))
        subprocess.run(["git", "add", "-A", "."], cwd=repo.root, env=env, check=True)
        argv = ["git", *GIT_IDENTITY, "commit", "-q", "-m", "the person's commit"]
        person = subprocess.Popen(argv, cwd=repo.root, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        assert wait_for(None, mark), "the person's commit never reached its hook"
        late = committers(repo.root)
        assert late, "the person's commit was not seen"
        from memidx.git.plumbing import Plumbing

        began = time.monotonic()
        with contextlib.suppress(StillUnderWay):  # it gave up first: the index follows still
            settle(Plumbing(repo.root), late, commit, [ref], began + MUTUAL)
        waited = time.monotonic() - began
        assert repo.memidx_process("sync").code == 0  # the index follows HEAD
    out, err = person.communicate(timeout=60)
    return waited, subprocess.CompletedProcess(argv, person.returncode, out, err)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_commit_begun_at_memidx_move_and_memidx_do_not_wait_for_each_other(
    tmp_path: Path,
) -> None:
    repo = _memory(tmp_path / "memory")
    waits: list[float] = []
    for _ in range(3):
        waited, person = _mutual_wait(repo)
        assert person.returncode == 0, person.stdout + person.stderr
        assert "drifted" not in person.stdout + person.stderr, person.stdout + person.stderr
        waits.append(waited)
    # was 10.0-10.1 s each (the whole of both waits); each side busy with its neighbours,
    # the check's own start (a Python process) is what is left
    assert statistics.median(waits) < MUTUAL / 2, waits
