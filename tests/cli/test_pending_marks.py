"""A note `remember` left pending survives `rm -rf .memidx`: its entry was kept in `.memidx/`,
which the README calls expendable, and went with it, the note left untracked for good with
nothing to say so (the chaos bench's finish). Entries are kept in the work tree's git folder."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_mark import FOLDER, any_pending, entries_dir
from memidx.memory.pending_notes import keep
from tests.helpers import NotesRepo, started_memory

BODY = "The disk was full of old logs, so every build failed until they were removed.\n"

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
SUBJECT = "memidx remember: Disk full"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return started_memory(tmp_path)


def _subjects(repo: NotesRepo, ref: str = "HEAD") -> list[str]:
    return repo.git("log", "--format=%s", ref).splitlines()


def test_a_pending_note_is_committed_once_after_memidx_is_deleted(repo: NotesRepo) -> None:
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    shutil.rmtree(repo.root / ".memidx")
    [shown] = repo.memidx("status", "--json").json()["pending_notes"]
    assert shown["path"] == REF  # still said to wait, with .memidx/ gone
    synced = repo.memidx("sync")
    assert synced.code == 0, synced.err
    assert _subjects(repo) == [SUBJECT, "start"]
    assert not any_pending(config) and repo.git("status", "--porcelain") == ""
    assert repo.memidx("sync").code == 0 and _subjects(repo) == [SUBJECT, "start"]  # once


def test_a_note_pending_for_a_side_branch_survives_it(repo: NotesRepo) -> None:
    """A note left for a branch no longer checked out waited for ever once its entry went."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("switch", "-q", "-c", "side")
    shutil.rmtree(repo.root / ".memidx")
    assert repo.memidx("sync").code == 0
    assert _subjects(repo, "main") == [SUBJECT, "start"]
    assert _subjects(repo, "side") == ["start"] and not any_pending(config)


def test_an_older_memidxs_entry_is_moved_out_of_memidx(repo: NotesRepo) -> None:
    """An entry an older memidx kept in `.memidx/pending-notes/` is read, and moved where
    `rm -rf .memidx` leaves it, at the first look."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    entry = keep(config, REF, "Disk full", TEXT, "refs/heads/main").entry
    legacy = config.state_dir / FOLDER / entry.name
    legacy.parent.mkdir(parents=True, exist_ok=True)
    entry.replace(legacy)  # where an older memidx kept it
    assert any_pending(config)
    assert [note["path"] for note in repo.memidx("status", "--json").json()["pending_notes"]] == [
        REF
    ]
    assert not legacy.exists() and (entries_dir(config) / entry.name).is_file()
    shutil.rmtree(repo.root / ".memidx")
    assert repo.memidx("sync").code == 0 and _subjects(repo) == [SUBJECT, "start"]


def test_each_work_tree_keeps_its_own_entries(repo: NotesRepo, tmp_path: Path) -> None:
    """A linked work tree's entries are in its own git folder: the main one's hooks and sync
    see none of them (and `git worktree remove` takes them with the work tree)."""
    repo.git("worktree", "add", "-q", "-b", "other", str(tmp_path / "other"))
    linked = load_config(tmp_path / "other", env={})
    (tmp_path / "other" / "notes").mkdir(exist_ok=True)
    (tmp_path / "other" / REF).write_text(TEXT)
    keep(linked, REF, "Disk full", TEXT, "refs/heads/other")
    folder = repo.root / ".git" / "worktrees" / "other" / "memidx" / "pending-notes"
    assert entries_dir(linked) == folder and any(folder.glob("*.json"))
    assert any_pending(linked) and not any_pending(load_config(repo.root, env={}))


def test_the_next_git_hook_commits_it_after_memidx_is_deleted(repo: NotesRepo) -> None:
    """The hook's mark and the finisher's log are in `.memidx/pending-notes/`: gone with it,
    touching the mark failed the hook's commit of the entries kept in the git folder."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    shutil.rmtree(repo.root / ".memidx")
    ran = repo.memidx_process("hook", "post-merge")
    assert ran.code == 0 and "remembered while git was busy" in ran.out, ran.out + ran.err
    assert _subjects(repo) == [SUBJECT, "start"] and not any_pending(config)


@contextmanager
def _unwritable(folder: Path) -> Generator[None]:
    """`folder` cannot be written in: chmod, or for root (whom chmod does not stop) the
    immutable flag; skipped where neither stops a write."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    flagged = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
    if flagged.returncode != 0:
        pytest.skip("this file system has no immutable flag, and root ignores chmod")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_an_entries_folder_memidx_cannot_write_in_refuses_no_remember(repo: NotesRepo) -> None:
    """`.git/memidx/pending-notes/` there already, not writable (another user's, read-only):
    its mkdir succeeded, the entry's write failed, and every remember was refused ("Operation
    not permitted"), its note left written and uncommitted. The entry is kept where entries
    were kept before (`.memidx/`), read and committed from there."""
    config = load_config(repo.root, env={})
    folder = entries_dir(config)
    folder.mkdir(parents=True)
    with _unwritable(folder):
        run = repo.memidx_process("remember", "--title", "Disk full", stdin=BODY)
        assert run.code == 0, run.err
        assert _subjects(repo) == [SUBJECT, "start"] and repo.git("status", "--porcelain") == ""
        later = TEXT.replace("Disk full", "Later")
        repo.write("notes/later.md", later)
        kept = keep(config, "notes/later.md", "Later", later, "refs/heads/main")  # git was busy
        assert kept.entry.parent == config.state_dir / FOLDER
        synced = repo.memidx("sync")
        assert synced.code == 0, synced.err
        assert _subjects(repo) == ["memidx remember: Later", SUBJECT, "start"]
        assert not any_pending(config) and not any(folder.iterdir())
