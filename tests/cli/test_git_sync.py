"""Git-native memory end to end: real git, a bare remote, two machines with the real
pre-commit hooks; nobody runs a memidx command by hand between git operations."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import NotesRepo
from tests.machines import Machine, clone, hook_env, install_hooks, make_template

QUERIES = ["shared memory", "vmmem", "timer linger", "flaky retry", "renamed words", "draft"]


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine]:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    return clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)


def same_memory(a: Machine, b: Machine) -> None:
    for query in QUERIES:
        assert a.search_refs(query) == b.search_refs(query), query
    assert b.memidx("reconcile").code == 0
    assert a.memidx("reconcile").code == 0


def test_machine_b_follows_machine_a_through_ff_merge_and_rebase_pulls(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    a.note("wsl/memory.md", "WSL memory", "vmmem eats RAM; cap it in .wslconfig")
    a.note("systemd/timers.md", "Remote timers", "timer needs linger on the remote host")
    a.note("ci/flaky.md", "Flaky tests", "retry once, then quarantine the flaky test")
    a.commit("add three notes")
    a.git("push", "-q", "origin", "main")
    b.git("pull", "-q", "--ff-only")
    same_memory(a, b)

    # A renames, deletes and edits; B has a local commit outside notes/: a true merge.
    shutil.move(a.root / "notes" / "ci" / "flaky.md", a.root / "notes" / "ci" / "renamed.md")
    a.note("ci/renamed.md", "Flaky tests", "renamed words: retry once, then quarantine")
    (a.root / "notes" / "systemd" / "timers.md").unlink()
    a.note("wsl/memory.md", "WSL memory", "vmmem eats RAM; memory=4GB in .wslconfig")
    a.commit("rename, delete, edit")
    a.git("push", "-q", "origin", "main")
    b.write("README.md", "machine b\n")
    b.commit("b: readme")
    b.git("pull", "-q", "--no-rebase", "--no-edit")
    assert len(b.git("log", "-1", "--format=%P").split()) == 2  # a merge commit
    same_memory(a, b)

    # A adds a note; B has another local commit and pulls with rebase.
    a.note("drafts/draft.md", "Draft", "draft words from machine a")
    a.commit("draft")
    a.git("push", "-q", "origin", "main")
    b.write("README.md", "machine b, again\n")
    b.commit("b: readme again")
    b.git("pull", "-q", "--rebase")
    same_memory(a, b)


def test_a_conflict_resolved_by_hand_leaves_the_merged_text_indexed(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    a.note("shared.md", "Shared note", "line one\nfrom machine a: alpha\n")
    a.commit("a edits")
    a.git("push", "-q", "origin", "main")
    b.note("shared.md", "Shared note", "line one\nfrom machine b: bravo\n")
    b.commit("b edits")
    pulled = b.run_git("pull", "--no-rebase", "--no-edit")
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr
    b.note("shared.md", "Shared note", "line one\nmerged: alpha and bravo together\n")
    b.git("add", "notes/shared.md")
    b.git("commit", "-q", "--no-edit")
    merged = b.memidx("search", "--json", "--mode", "bm25", "together").json()["hits"]
    assert [h["ref"] for h in merged] == ["notes/shared.md"]
    assert b.memidx("search", "--json", "--mode", "bm25", "bravo").json()["count"] == 1
    assert b.memidx("reconcile").code == 0
    b.git("push", "-q", "origin", "main")
    a.git("pull", "-q", "--ff-only")
    same_memory(a, b)


def test_a_commit_without_hooks_is_drift_that_blocks_the_next_commit(
    machines: tuple[Machine, Machine], tmp_path: Path
) -> None:
    a, _ = machines
    no_hooks = tmp_path / "no-hooks"
    no_hooks.mkdir()
    a.note("sneaky.md", "Sneaky", "committed behind the index's back")
    a.git("add", "-A")
    a.git("-c", f"core.hooksPath={no_hooks}", "commit", "-q", "-m", "no hooks")
    status = a.memidx("status")
    assert status.code == 1 and "1 missing" in status.out
    a.note("next.md", "Next", "the next commit")
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "-m", "next")
    assert blocked.returncode != 0
    said = blocked.stdout + blocked.stderr
    assert "the index has drifted from HEAD (it is at " in said
    assert (
        "a git operation no memidx hook followed, e.g. git reset where only pre-commit's "
        "hooks are installed, or a hook failed)" in said
    )
    assert ": 1 missing, 0 stale, 0 orphaned" in said
    assert "memidx reconcile --fix" in blocked.stdout + blocked.stderr  # no Makefile here
    assert a.memidx("reconcile", "--fix").code == 0
    a.git("commit", "-q", "-m", "next")
    assert a.memidx("status").code == 0
    assert a.memidx("search", "--json", "--mode", "bm25", "sneaky").json()["count"] == 1


def test_remember_after_a_reset_catches_the_index_up_and_commits(
    machines: tuple[Machine, Machine],
) -> None:
    a, _ = machines
    a.note("gone.md", "Gone", "the dholes note about to be reset away")
    a.git("add", "-A")
    a.git("commit", "-q", "-m", "to be reset")
    # no hook runs (a git older than 2.28 has no reference-transaction): the index is behind
    a.git("-c", "core.hooksPath=/nonexistent", "reset", "-q", "--hard", "HEAD~1")

    run = a.memidx_process("remember", "--title", "Dholes", stdin="Dholes hunt in packs.\n")

    assert run.code == 0, run.err
    assert a.git("status", "--porcelain").strip() == ""  # the note is committed
    hits = a.memidx("search", "--json", "--mode", "bm25", "dholes").json()["hits"]
    assert [h["ref"] for h in hits] == ["notes/dholes.md"]
    assert a.memidx("status").code == 0


def test_a_post_commit_that_cannot_run_is_recorded_and_blocks_until_reconcile(
    machines: tuple[Machine, Machine],
) -> None:
    a, _ = machines
    missing = r"/nonexistent/a\tb\c/python"  # backslashes are shown as they are, not escapes
    a.env = {**a.env, "MEMIDX_PYTHON": missing}
    a.note("lost.md", "Lost", "indexed only after reconcile")
    a.git("add", "-A")
    done = a.run_git("commit", "-q", "-m", "hooks without an interpreter", "--no-verify")
    assert done.returncode == 0
    shown = f"cannot run memidx: no Python at {missing} (run make install, then make reconcile)"
    assert shown in done.stdout + done.stderr
    a.env = {**a.env, "MEMIDX_PYTHON": hook_python(a)}
    status = a.memidx("status", "--json").json()
    assert status["hook_failure"]["hook"] == "post-commit"
    assert status["drift"]["missing"] == ["notes/lost.md"]
    a.note("after.md", "After", "blocked until reconcile")
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "-m", "after")
    assert blocked.returncode != 0
    assert "a git hook could not update the index" in blocked.stdout + blocked.stderr
    assert a.memidx("reconcile", "--fix").code == 0
    a.git("commit", "-q", "-m", "after")
    assert a.memidx("status").code == 0


def hook_python(machine: Machine) -> str:
    import sys

    del machine
    return sys.executable


# The hooks' memidx waits BUSY_TIMEOUT_MS (5 s) for a locked index, then gives up: 0.5 s in the
# processes of a hook given this folder's sitecustomize (PYTHONPATH), so that a test of the
# giving up does not wait 5 s at each hook; it logs that it ran, so the wait is known shortened.
SHORT_BUSY_WAIT = (
    "import os\n"
    "import memidx.index.connection as connection\n"
    "connection.BUSY_TIMEOUT_MS = 500\n"
    "with open(os.environ['SHORT_BUSY_LOG'], 'a') as log:\n"
    "    log.write('armed\\n')\n"
)


def short_busy_wait(machine: Machine, folder: Path) -> Path:
    """The hooks `machine`'s git runs wait 0.5 s for a locked index; the log of their loads."""
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(SHORT_BUSY_WAIT)
    log = folder / "loaded.log"
    machine.env = {**machine.env, "PYTHONPATH": str(folder), "SHORT_BUSY_LOG": str(log)}
    return log


def test_a_locked_index_fails_the_hook_not_the_git_operation(
    machines: tuple[Machine, Machine], tmp_path: Path
) -> None:
    a, _ = machines
    loaded = short_busy_wait(a, tmp_path / "short-busy-wait")
    holder = sqlite3.connect(a.root / ".memidx" / "index.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        a.note("while-locked.md", "While locked", "committed while the index was locked")
        a.git("add", "-A")
        done = a.run_git("commit", "-q", "-m", "locked", "--no-verify")
        checkout = a.run_git("checkout", "-q", "-b", "other")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert loaded.read_text().count("armed") >= 2  # both hooks waited 0.5 s, not 5 s
    assert done.returncode == 0 and checkout.returncode == 0
    assert (
        "could not update the index" in done.stdout + done.stderr
        and "locked" in done.stdout + done.stderr
    )
    assert a.memidx("status", "--json").json()["hook_failure"] is not None
    assert a.memidx("reconcile", "--fix").code == 0
    assert a.memidx("status").code == 0


def test_branch_switch_detached_head_and_reset_keep_the_index_in_step(
    machines: tuple[Machine, Machine],
) -> None:
    a, _ = machines
    a.git("checkout", "-q", "-b", "feature")
    a.note("feature.md", "Feature", "feature branch words")
    a.commit("feature note")
    a.git("checkout", "-q", "main")
    assert a.memidx("search", "--json", "--mode", "bm25", "feature").json()["count"] == 0
    a.git("checkout", "-q", "--detach", "feature")
    assert a.memidx("search", "--json", "--mode", "bm25", "feature").json()["count"] == 1
    a.git("checkout", "-q", "main")
    # a reset that runs no hook (a git older than 2.28): search and status say the index is
    # behind; `sync` catches up.
    a.git("-c", "core.hooksPath=/nonexistent", "reset", "-q", "--hard", "feature")
    behind = a.memidx("search", "--json", "--mode", "bm25", "feature").json()
    assert behind["count"] == 0 and "run `memidx sync`" in behind["warnings"][0]
    assert a.memidx("status").code == 1
    assert a.memidx("sync").code == 0
    assert a.memidx("search", "--json", "--mode", "bm25", "feature").json()["count"] == 1
    a.git("reset", "-q", "--hard", "HEAD~1")
    a.git("checkout", "-q", "-b", "after-reset")  # the next hooked operation catches up too
    assert a.memidx("search", "--json", "--mode", "bm25", "feature").json()["count"] == 0
    assert a.memidx("reconcile").code == 0


def test_staged_notes_that_cannot_be_indexed_block_the_commit(
    machines: tuple[Machine, Machine],
) -> None:
    a, _ = machines
    a.write("notes/picture.md", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "-m", "binary")
    assert blocked.returncode != 0
    assert "notes/picture.md:1: cannot be indexed: binary file" in blocked.stdout + blocked.stderr
    a.git("reset", "-q")
    (a.root / "notes/picture.md").unlink()
    (a.root / "notes/link.md").symlink_to("../README.md")  # pre-commit passes no symlink by default
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "-m", "link")
    assert blocked.returncode != 0
    assert "notes/link.md:1: cannot be indexed: a symlink" in blocked.stdout + blocked.stderr


def test_a_note_not_in_english_is_blocked_with_its_language(
    machines: tuple[Machine, Machine],
) -> None:
    a, _ = machines
    a.note(
        "de.md",
        "Speicher unter WSL",
        "Der Prozess vmmem belegt den gesamten Arbeitsspeicher. Man kann das Limit in der "
        "Datei wslconfig festlegen und danach die virtuelle Maschine neu starten.",
    )
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "-m", "german")
    assert blocked.returncode != 0
    assert "notes/de.md: written in de" in blocked.stdout + blocked.stderr
    assert a.memidx("search", "--json", "--mode", "bm25", "vmmem").json()["count"] == 0


def test_an_empty_repository_and_the_first_commit(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    template = tmp_path / "t"
    NotesRepo(template)
    shutil.copytree(Path(__file__).resolve().parents[2] / "hooks", template / "hooks")
    shutil.copy(Path(__file__).resolve().parents[2] / ".pre-commit-config.yaml", template)
    machine = Machine(template, env)
    install_hooks(template, env)
    assert machine.memidx("ingest").code == 0
    machine.note("first.md", "First", "the very first note")
    machine.commit("first")
    assert machine.memidx("search", "--json", "--mode", "bm25", "first").json()["count"] == 1


def test_one_hook_names_each_post_stage_it_runs_for(machines: tuple[Machine, Machine]) -> None:
    a, _ = machines
    a.env = {**a.env, "MEMIDX_PYTHON": "/nonexistent/python"}  # every hook leaves a trace line
    log = a.root / ".memidx" / "hook-error.log"

    def stages_of(*git: str) -> list[str]:
        before = log.read_text().splitlines() if log.exists() else []
        done = a.run_git(*git)
        assert done.returncode == 0, done.stderr
        return [line.split("\t")[1] for line in log.read_text().splitlines()[len(before) :]]

    a.note("stage.md", "Stage", "which hook ran")
    a.git("add", "-A")
    assert stages_of("commit", "-q", "--no-verify", "-m", "one") == ["post-commit"]
    assert stages_of("commit", "-q", "--no-verify", "--amend", "-m", "one, amended") == [
        "post-commit",
        "post-rewrite",
    ]
    assert stages_of("checkout", "-q", "-b", "side") == ["post-checkout"]
    a.note("side.md", "Side", "on a branch")
    a.git("add", "-A")
    stages_of("commit", "-q", "--no-verify", "-m", "side")
    stages_of("checkout", "-q", "main")
    assert stages_of("merge", "-q", "--ff-only", "side") == ["post-merge"]


def test_a_sync_that_read_head_before_a_checkout_never_takes_the_index_back(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync (`memidx sync`, `remember`'s, a hook) that read HEAD, then lost the race to a
    checkout's hook that indexed the newer HEAD first, plans again: against the HEAD of now,
    not the one it read, or the index ends behind HEAD with no git operation left to mend it."""
    from memidx.config import load_config
    from memidx.index import sync as sync_module
    from memidx.index.store import open_store

    repo.note("a.md", "Alpha", "alpha words")
    first = repo.commit("one")
    repo.note("b.md", "Beta", "beta words")
    repo.commit("two")
    repo.note("c.md", "Gamma", "gamma words")
    third = repo.commit("three")
    repo.git("checkout", "-q", "--detach", first)
    config = load_config(repo.root, env={})
    store, _ = open_store(config.index_path, write=True)
    sync_module.sync(config, store)
    repo.git("checkout", "-q", "--detach", "HEAD@{1}~1")  # the second commit
    planned = sync_module.adds.step_plan
    hooks: list[str] = []

    def a_checkout_and_its_hook_meanwhile(*args: object, **kwargs: object) -> object:
        if not hooks:
            repo.git("checkout", "-q", "--detach", third)
            hooks.append(third)
            other, _ = open_store(config.index_path, write=True)
            try:
                sync_module.sync(config, other)  # the post-checkout hook: the index at three
            finally:
                other.conn.close()
        return planned(*args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(sync_module.adds, "step_plan", a_checkout_and_its_hook_meanwhile)
    sync_module.sync(config, store)

    assert hooks == [third]
    assert store.get_state("indexed_commit") == third == repo.git("rev-parse", "HEAD").strip()
    store.conn.close()


def test_a_branch_that_is_a_symbolic_ref_is_followed_to_its_commit(repo: NotesRepo) -> None:
    # `git symbolic-ref refs/heads/master refs/heads/main` (an old name kept for a renamed
    # branch): HEAD's ref file holds "ref: refs/heads/main", which the hook took for HEAD's
    # commit and failed on ("git diff-tree printed what memidx cannot read"), every commit
    # on that branch then blocked by the trace until `make reconcile`, then failing again.
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit("one")
    assert repo.memidx("ingest").code == 0
    repo.git("symbolic-ref", "refs/heads/master", "refs/heads/main")
    repo.git("checkout", "-q", "master")
    repo.note("b.md", "Beta", "beta words")
    head = repo.commit("two")

    hook = repo.memidx_process("hook", "post-commit")

    assert "could not update" not in hook.out, hook
    assert not (repo.root / ".memidx" / "hook-error.log").exists()
    status = repo.memidx("status", "--json").json()
    assert status["index"]["indexed_commit"] == head and status["healthy"], status
    assert repo.memidx("search", "--json", "--mode", "bm25", "beta").json()["count"] == 1
