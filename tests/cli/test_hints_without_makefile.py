"""Hints name a command the person can run in this clone: `memidx status` and the drift check
said `run `make reconcile`` (and `make embed`) in clones without memidx's Makefile, where make
answers "No rule to make target"; they name the memidx command now, `make` only where the
clone's Makefile has that target."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import NotesRepo

MAKEFILE = "reconcile: ## repair drift\n\tmemidx reconcile --fix\n"


@pytest.fixture
def drifted(tmp_path: Path) -> NotesRepo:
    """A memory whose index is behind HEAD: a note committed with no memidx hook installed."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.note("a.md", "Alpha", "the first note, in plain English words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.note("b.md", "Bravo", "committed without the hooks, so the index is behind")
    repo.commit()
    return repo


def test_without_a_makefile_the_hints_name_the_memidx_command(drifted: NotesRepo) -> None:
    check = drifted.memidx("check", "drift")
    status = drifted.memidx("status")
    assert check.code == 1 and "run `memidx reconcile --fix`" in check.out, check.out
    assert "memidx reconcile --fix" in status.out, status.out
    assert "make reconcile" not in check.out + status.out + status.err
    assert "make embed" not in status.out


def test_with_the_target_in_the_makefile_the_hints_name_make(drifted: NotesRepo) -> None:
    drifted.write("Makefile", MAKEFILE)
    drifted.commit("a Makefile with the target")
    drifted.memidx("ingest")
    drifted.note("c.md", "Charlie", "another note committed without the hooks")
    drifted.commit()
    check = drifted.memidx("check", "drift")
    assert check.code == 1 and check.out.rstrip().endswith("; run `make reconcile`"), check.out


def test_share_without_a_makefile_names_memidx_share(drifted: NotesRepo) -> None:
    """A clone with no remote: `memidx share` said "(to share: git remote add origin URL; make
    sync)"; its errors say "then make sync again" the same way, rewritten at the same edge."""
    run = drifted.memidx("share")
    assert run.code == 0, run.err
    assert "git remote add origin URL; memidx share)" in run.out and "make sync" not in run.out
    drifted.write("Makefile", "sync:\n\tmemidx share\n")
    assert "git remote add origin URL; make sync)" in drifted.memidx("share").out
