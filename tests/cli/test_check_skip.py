"""SKIP and `memidx check all`: the framework shows its one hook Passed whatever SKIP took out
of it, so what was not run is said; SKIP naming every check skips the hook, shown Skipped."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import NotesRepo
from tests.machines import Machine, clone, hook_env, make_template

CHECKS = "memidx index in step, notes in English, no secret"
ENGLISH = "The file lock is held by another process on Windows, so nobody can write any more."


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    """An indexed memory with an English note staged."""
    monkeypatch.delenv("SKIP", raising=False)
    monkeypatch.delenv("MEMIDX_CHECK_NOTICES", raising=False)
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    repo.note("lock.md", "File lock", ENGLISH)
    repo.git("add", "-A")
    return repo


def test_the_checks_skip_leaves_out_are_said(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """memidx's shim shows the notices file after the framework's lines."""
    notices = tmp_path / "notices"
    monkeypatch.setenv("MEMIDX_CHECK_NOTICES", str(notices))
    monkeypatch.setenv("SKIP", "memidx-secrets, memidx-english")

    done = repo.memidx("check", "all", "notes/lock.md")

    assert done.code == 0 and done.out == "", done
    assert notices.read_text() == "memidx: memidx-english and memidx-secrets skipped (SKIP)\n"


def test_skip_of_every_check_says_nothing_was_checked(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run by the framework without memidx's shim (which skips the hook itself then)."""
    monkeypatch.setenv("SKIP", "memidx-drift,memidx-secrets,memidx-english")

    done = repo.memidx("check", "all", "notes/lock.md")

    assert done.code == 0 and done.out == "", done
    assert done.err == (
        "memidx: memidx-drift, memidx-english and memidx-secrets skipped (SKIP): nothing was "
        "checked\n"
    )


def test_a_commit_skipping_every_check_shows_the_hook_skipped(tmp_path: Path) -> None:
    """As for any hook SKIP names, not Passed: it checked nothing."""
    env = hook_env(tmp_path / "pre-commit-home", SKIP="memidx-drift, memidx-english,memidx-secrets")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    machine.note("lock.md", "File lock", ENGLISH)
    machine.git("add", "-A")

    done = _commit(machine, env)

    assert done.returncode == 0, done.stdout + done.stderr
    # (git gives its hooks' standard output to its standard error)
    shown = [line for line in done.stderr.splitlines() if line.startswith(CHECKS)]
    assert len(shown) == 1 and shown[0].endswith("Skipped"), done.stderr


def _commit(machine: Machine, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-m", "a note"],
        cwd=machine.root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
