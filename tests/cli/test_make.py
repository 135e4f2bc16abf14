"""The Makefile's everyday targets, run the way the README says (`make search Q=...`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import NotesRepo, clean_env

PROJECT = Path(__file__).resolve().parents[2]


def make(repo: NotesRepo, *args: str) -> subprocess.CompletedProcess[str]:
    venv = Path(sys.executable).parent.parent
    return subprocess.run(
        [
            "make",
            "-s",
            "-f",
            str(PROJECT / "Makefile"),
            "-C",
            str(repo.root),
            f"VENV={venv}",
            *args,
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("$PATH is empty in cron", "path empty cron"),
        ("$(shell echo injected) lock", "shell echo injected lock"),
        ('it said "file" `lock`', "it said file lock"),
    ],
)
def test_make_search_passes_the_query_through_untouched(
    repo: NotesRepo, query: str, words: str
) -> None:
    repo.note("cron.md", "Cron", "In cron $PATH is empty, so a file lock script fails.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    (repo.root / "pyproject.toml").write_text("")  # no [tool.memidx]: the defaults
    done = make(repo, "search", f"Q={query}")
    assert done.returncode == 0, done.stderr
    assert f"for '{words}'" in done.stdout, done.stdout


def test_make_search_never_runs_what_the_query_names(repo: NotesRepo, tmp_path: Path) -> None:
    # make exports a command line's variables to every recipe, expanding them first: a
    # `$(shell ...)` in Q ran, and `$(Q)` in Q stopped make ("references itself")
    repo.note("lock.md", "Lock", "A file lock script fails.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    (repo.root / "pyproject.toml").write_text("")
    marker = tmp_path / "ran"
    for query in (f"$(shell touch {marker}) lock", "file $(Q) lock"):
        done = make(repo, "search", f"Q={query}")
        assert done.returncode == 0, done.stderr
        assert "hits for" in done.stdout, done.stdout
    assert not marker.exists()


def test_make_search_without_a_query_is_a_usage_error(repo: NotesRepo) -> None:
    done = make(repo, "search")
    assert done.returncode == 2 and "usage: make search" in done.stderr
