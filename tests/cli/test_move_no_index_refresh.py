"""The `git reset` that tells git's index about a move's paths refreshes no other entry.

From git 2.36 `git reset -q <new> -- <paths>` refreshes the whole index after the reset, which
`-q` skipped before: on a clone whose 30,000 files had their stat touched, each forget and
remember paid 0.41-1.18 s for it (memidx/git/reset_words.py). Now memidx passes `--no-refresh`
where git has it: the entry of a note the move did not touch keeps the stat it had (`git
ls-files --debug`), and `git status` still reports nothing modified."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from memidx.git.repo import git_env
from memidx.git.reset_words import NO_REFRESH_FROM, git_version, quiet_reset
from tests.helpers import NotesRepo, started_memory

# `git` first on PATH: each `reset` memidx runs is written to the log, one line of its words
RECORDING_GIT = """#!/bin/sh
case " $* " in *" reset "*) printf '%s\\n' "$*" >>{log};; esac
exec {real} "$@"
"""

pytestmark = pytest.mark.skipif(
    git_version() < NO_REFRESH_FROM, reason="git before 2.36: `reset -q` refreshes nothing"
)


def _resets_recorded(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The log each `git reset` run from now on is written to."""
    log, shim = repo.root.parent / "resets.log", repo.root.parent / "shim"
    shim.mkdir()
    real = shutil.which("git")
    assert real is not None
    text = RECORDING_GIT.format(log=shlex.quote(str(log)), real=shlex.quote(real))
    (shim / "git").write_text(text)
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    return log


def _entry_times(repo: NotesRepo, ref: str) -> str:
    """The ctime and mtime git's index holds for `ref` (`git ls-files --debug`)."""
    listed = repo.git("ls-files", "--debug", "--", ref).splitlines()
    return "\n".join(line.strip() for line in listed if line.strip().startswith(("ctime", "mtime")))


def _touched(repo: NotesRepo, ref: str) -> None:
    """`ref`'s file given another mtime (and so ctime), its bytes the same: stat-dirty."""
    file = repo.root / ref
    seen = file.stat()
    os.utime(file, ns=(seen.st_atime_ns, seen.st_mtime_ns + 5_000_000_000))


@pytest.mark.parametrize("move", ["forget", "remember"])
def test_a_move_refreshes_no_other_entry_of_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, move: str
) -> None:
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.note("ops/other.md", "Other", "The other note, its stat touched.")
    repo.commit("two notes")
    _touched(repo, "notes/ops/other.md")
    before = _entry_times(repo, "notes/ops/other.md")
    log = _resets_recorded(repo, monkeypatch)

    if move == "forget":
        said = repo.memidx("forget", "notes/ops/deploy.md")
    else:
        said = repo.memidx("remember", "--title", "Rollback", stdin="Roll back on Fridays.\n")

    monkeypatch.undo()
    assert said.code == 0, said
    resets = log.read_text().splitlines()
    assert resets, "the move told git's index with a reset"
    assert all("--no-refresh" in words.split() for words in resets), resets
    assert _entry_times(repo, "notes/ops/other.md") == before  # not refreshed: not rehashed
    assert repo.git("status", "--porcelain") == ""  # nothing reported modified: it is not


def test_the_installed_git_takes_the_words_at_a_path_it_does_not_know(tmp_path: Path) -> None:
    """quiet_reset's words run by this machine's git: an option it lacked would fail every
    move's follow, and so would a path neither the index nor the commit holds (a restore's)."""
    import subprocess

    repo = NotesRepo(tmp_path / "memory")
    repo.note("a.md", "A", "A note.")
    head = repo.commit("a")
    argv = ["git", "-C", str(repo.root), *quiet_reset(), head, "--", ":(literal)notes/gone.md"]
    done = subprocess.run(argv, env=git_env(), capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
