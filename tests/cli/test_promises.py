"""Promises of the README that had no test of their own: Ctrl-C is exit 130 without a
traceback, `make install`'s ingest completes over notes that cannot be indexed, and the
everyday make targets never install anything after a `git pull` changed pyproject.toml."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env, venv_for_make

PROJECT = Path(__file__).resolve().parents[2]


# memidx as started from a terminal, even when the suite runs where SIGINT is ignored (a
# background job of a shell without job control), which memidx would inherit and keep
DEFAULT_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def test_an_interrupt_is_exit_130_without_a_traceback(repo: NotesRepo) -> None:
    with subprocess.Popen(
        # `file-turn` waits for its stdin, which never ends
        [sys.executable, "-c", DEFAULT_SIGINT, str(MEMIDX_BIN), "file-turn"],
        cwd=repo.root,
        env=clean_env(MEMIDX_ROOT=str(repo.root)),  # a new repository is no memory until indexed
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        time.sleep(3)  # past the start-up, into the read
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)

    assert child.returncode == 130, err
    assert "Traceback" not in err


def test_ingest_allow_skipped_completes_over_a_note_that_cannot_be_indexed(
    repo: NotesRepo,
) -> None:
    repo.note("good.md", "Good", "a searchable albatross note")
    repo.write("notes/bad.md", b"\xff\xfe not text")
    repo.commit()

    strict = repo.memidx("ingest")
    allowed = repo.memidx("ingest", "--allow-skipped")

    assert strict.code == 1 and "notes/bad.md: skipped" in strict.err
    assert allowed.code == 0 and "notes/bad.md: skipped" in allowed.err
    hits = repo.memidx("search", "--mode", "bm25", "--json", "albatross").json()["hits"]
    assert [h["ref"] for h in hits] == ["notes/good.md"]


def test_make_search_after_pyproject_changed_warns_and_installs_nothing(repo: NotesRepo) -> None:
    repo.note("cron.md", "Cron", "In cron the albatross script fails.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    venv = venv_for_make(repo.root.parent / "make-venv")
    stamp = venv / ".installed"
    before = stamp.stat().st_mtime_ns if stamp.exists() else None
    (repo.root / "pyproject.toml").write_text("")  # newer than the stamp: a pull changed it

    done = subprocess.run(
        ["make", "-s", "-f", str(PROJECT / "Makefile"), "-C", str(repo.root), f"VENV={venv}",
         "search", "Q=albatross"],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert "pyproject.toml changed since make install: run make install" in done.stderr
    assert "notes/cron.md" in done.stdout
    assert (stamp.stat().st_mtime_ns if stamp.exists() else None) == before
