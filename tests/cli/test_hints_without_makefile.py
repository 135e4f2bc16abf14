"""Hints name a command the person can run in this clone: `memidx status` and the drift check
said `run `make reconcile`` (and `make embed`) in clones without memidx's Makefile, where make
answers "No rule to make target"; they name the memidx command now, `make` only where the
clone's Makefile has that target."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.githooks.shims import shim
from tests.cli.test_push_gaps import TOKEN, started
from tests.helpers import NotesRepo, clean_env

MAKEFILE = "reconcile: ## repair drift\n\tmemidx reconcile --fix\n"
MAKEFILE_SYNC = "sync: ready ## pull and push\n\tmemidx share\n"


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


@pytest.mark.parametrize(
    ("makefile", "todo"),
    [
        (None, "memidx reconcile --fix"),  # an orphan branch: no Makefile either
        ("all:\n\techo\n", "memidx reconcile --fix"),
        ("RECONCILE := reconcile\n", "memidx reconcile --fix"),  # a variable, no rule
        ("ingest reconcile: ready\n\tmemidx reconcile --fix\n", "make reconcile"),
        (MAKEFILE, "make reconcile"),
    ],
)
def test_a_checkout_without_the_hook_script_names_a_reconcile_that_runs_there(
    tmp_path: Path, makefile: str | None, todo: str
) -> None:
    """The shims' line for a checkout without hooks/memidx-hook said `run make reconcile`,
    though such a checkout (an orphan branch, an old commit) mostly lacks memidx's Makefile
    too: "No rule to make target 'reconcile'"."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    if makefile is not None:
        (checkout / "Makefile").write_text(makefile, encoding="utf-8")
    script = tmp_path / "post-checkout"
    script.write_text(shim("post-checkout"), encoding="utf-8")
    env = clean_env(XDG_STATE_HOME=str(tmp_path / "state"))

    done = subprocess.run(
        ["/bin/sh", str(script)], cwd=checkout, env=env, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith(f"index not updated (run {todo})\n"), done.stderr


@pytest.mark.parametrize(
    ("makefile", "again"), [(None, "memidx share"), (MAKEFILE_SYNC, "make sync")]
)
def test_an_outgoing_secret_names_the_share_that_runs_there(
    tmp_path: Path, makefile: str | None, again: str
) -> None:
    """share's check of what it would push said "then make sync again" whatever the clone held,
    right only once share's own edge rewrote it; it names the command itself now."""
    from memidx.githooks.outgoing_check import refuse_outgoing_secrets

    repo = started(tmp_path)
    if makefile is not None:
        repo.write("Makefile", makefile)
    repo.git("config", "branch.main.remote", "origin")
    repo.git("config", "branch.main.merge", "refs/heads/main")
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")
    repo.git("commit", "-q", "--allow-empty", "-m", f"Deploy with {TOKEN}")

    with pytest.raises(MemidxError) as raised:
        refuse_outgoing_secrets(
            Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
        )

    assert raised.value.hint.endswith(f", then {again} again"), raised.value.hint


def test_a_pulled_model_names_the_embed_that_runs_there(
    drifted: NotesRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`memidx model pull` said "then run make embed" in a clone without memidx's Makefile. The
    download itself (a network) is stood in for: what is said after it is under test."""
    from memidx.cli.main import main
    from memidx.embed import embedders

    def downloaded(_config: Config, name: str) -> tuple[str, int, Path]:
        return name, 384, drifted.root / "models"

    monkeypatch.setattr(embedders, "pull", downloaded)

    assert main(["-C", str(drifted.root), "model", "pull", "BAAI/bge-base-en-v1.5"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("then run memidx embed")
