"""A build under way (`memidx ingest` filling a deleted index) holds the creation lock while it
fills: a git hook that comes meanwhile waits for it, and never marks the index built (nor fails
on a busy index) before every note and record is in."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

import memidx.index.sync
from tests.helpers import NotesRepo, Run, clean_env, run_in_process


def build_state(index: Path) -> set[str]:
    with closing(sqlite3.connect(index)) as conn:
        rows = conn.execute("SELECT key FROM state WHERE key LIKE 'build_%'").fetchall()
    return {key for (key,) in rows}


def test_a_hook_during_an_ingest_fill_waits_and_never_marks_it_built_early(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.note("lock.md", "File locks", "a file-locking problem on Windows")
    repo.commit("notes")
    index = repo.root / ".memidx" / "index.sqlite"
    filling, go_on = threading.Event(), threading.Event()
    real_ingest: Callable[..., memidx.index.sync.SyncReport] = memidx.index.sync.ingest

    def slow_ingest(*args: object, **kwargs: object) -> memidx.index.sync.SyncReport:
        filling.set()  # the index is created, its build started, no note in yet
        assert go_on.wait(60)
        return real_ingest(*args, **kwargs)

    monkeypatch.setattr(memidx.index.sync, "ingest", slow_ingest)
    ingested: list[Run] = []
    ingest = threading.Thread(target=lambda: ingested.append(run_in_process(repo.root, "ingest")))
    ingest.start()
    try:
        assert filling.wait(60)
        hook = subprocess.Popen(
            [sys.executable, "-m", "memidx", "hook", "post-commit"],
            cwd=repo.root,
            env=clean_env(MEMIDX_HOOK_EMBED="0"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(2.0)
        assert build_state(index) == {"build_started"}  # not built while the fill runs
        assert hook.poll() is None  # the hook waits for the build
    finally:
        go_on.set()
        ingest.join(60)
    out, err = hook.communicate(timeout=60)
    assert hook.returncode == 0 and "could not" not in out, out + err
    assert ingested[0].code == 0, ingested[0].err
    assert build_state(index) == {"build_started", "build_completed"}
    hits = repo.memidx("search", "--json", "--mode", "bm25", "file locking").json()["hits"]
    assert [h["ref"] for h in hits] == ["notes/lock.md"]
    assert "hook error:  none" in repo.memidx("status").out
