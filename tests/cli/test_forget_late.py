"""`memidx forget` whose commit a person's git command (a merge, a pull) started with, still
under way past memidx's wait (memidx.git.late): the note was forgotten in HEAD, yet the line
said it "was not forgotten (try again)", and the index still held it."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memidx.git import commit as commit_module
from memidx.git import late
from memidx.git.publish import started
from tests.cli.test_forget import hits
from tests.helpers import NotesRepo, Run


def _indexed_note(tmp_path: Path) -> tuple[NotesRepo, str, str]:
    """A memory whose one commit holds a note about zebras, indexed: the repository, the
    note's path and the commit."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    kept = repo.note("kept.md", "Zebra stripes", "zebra stripes")
    before = repo.commit("a note")
    assert repo.memidx("ingest").code == 0
    return repo, kept, before


def _forget_under_a_late_merge(
    monkeypatch: pytest.MonkeyPatch, repo: NotesRepo, kept: str, before: str
) -> Run:
    """`memidx forget kept` whose commit a person's `git merge` (a sleep standing for it) is
    found under way at, still running past memidx's wait (shortened to 1 s)."""
    monkeypatch.setattr(late, "LATE_FLOOR", 0.3)
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.0)
    real_committers = commit_module.committers

    with subprocess.Popen(["sleep", "30"]) as merge:  # stands for a person's `git merge`

        def a_merge_at_the_move(root: Path, *args: frozenset[str]) -> dict[str, str]:
            if repo.git("rev-parse", "HEAD").strip() == before:  # the looks before the move
                return real_committers(root, *args)
            return {str(merge.pid): f"merge {started(str(merge.pid))}"}

        monkeypatch.setattr(commit_module, "committers", a_merge_at_the_move)
        try:
            return repo.memidx("forget", kept)
        finally:
            merge.kill()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_forget_with_a_git_still_under_way_says_it_is_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, kept, before = _indexed_note(tmp_path)

    run = _forget_under_a_late_merge(monkeypatch, repo, kept, before)

    assert run.code == 0, run.err  # forgotten, said with what that git may still do
    assert f"warning: {kept} is forgotten (" in run.err, run.err
    assert f"still under way, and may stage {kept} again" in run.err, run.err
    assert f"git rm --cached -- {kept}" in run.err, run.err
    assert "not forgotten" not in run.err and "try again" not in run.err, run.err
    assert repo.git("log", "-1", "--format=%s") == f"memidx forget: {kept}\n"
    assert not (repo.root / kept).exists()
    assert kept not in hits(repo, "zebra")  # the index followed


def test_a_forget_a_late_git_undid_says_it_in_forgets_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The late git ended having put HEAD back where the note is (a reset it was making): the
    line spoke of a commit "committed again from the file on disk", remember's words."""
    repo, kept, before = _indexed_note(tmp_path)
    real_committers = commit_module.committers

    def a_reset_at_the_move(root: Path, *args: frozenset[str]) -> dict[str, str]:
        if repo.git("rev-parse", "HEAD").strip() == before:  # the looks before the move
            return real_committers(root, *args)
        repo.git("update-ref", "HEAD", before)  # it ends, HEAD back on the note
        return {"4194303": "reset 1"}  # ended already

    monkeypatch.setattr(commit_module, "committers", a_reset_at_the_move)

    run = repo.memidx("forget", kept)

    assert run.code == 1, run.err
    assert f"put {kept} back in HEAD, so {kept} was not forgotten" in run.err, run.err
    assert "committed again" not in run.err, run.err
    assert (repo.root / kept).exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_forget_again_in_the_second_of_one_undone_says_it_is_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forgotten, the forget undone by a person's `git reset --hard HEAD~`, forgotten again in
    the same second under a late git: the second forget's commit is the first's, byte for
    byte, so the reflog look (commits before, minus commits after) found none new and the
    line said the late git "put notes/kept.md back in HEAD, so it was not forgotten", exit 1,
    of a note HEAD no longer held."""
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")  # one second for both
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
    repo, kept, before = _indexed_note(tmp_path)
    assert repo.memidx("forget", kept).code == 0
    first = repo.git("rev-parse", "HEAD").strip()
    repo.git("reset", "-q", "--hard", "HEAD~")  # the person takes the forget back
    assert repo.memidx("sync").code == 0

    run = _forget_under_a_late_merge(monkeypatch, repo, kept, before)

    assert repo.git("rev-parse", "HEAD").strip() == first  # the same commit again
    assert run.code == 0, run.err
    assert f"warning: {kept} is forgotten ({first[:12]})" in run.err, run.err
    assert "not forgotten" not in run.err, run.err
    assert not (repo.root / kept).exists()
    assert kept not in hits(repo, "zebra")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_forget_under_a_late_git_in_a_clone_keeping_no_reflog_says_it_is_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """core.logAllRefUpdates=false: no reflog to look in, the forget's commit landed and HEAD
    lacked the note, yet the line said the late git put it back in HEAD, exit 1."""
    repo, kept, before = _indexed_note(tmp_path)
    repo.git("config", "core.logAllRefUpdates", "false")
    shutil.rmtree(repo.root / ".git" / "logs")  # git writes to a reflog that exists

    run = _forget_under_a_late_merge(monkeypatch, repo, kept, before)

    head = repo.git("rev-parse", "HEAD").strip()
    assert repo.git("log", "-1", "--format=%s") == f"memidx forget: {kept}\n"
    assert run.code == 0, run.err
    assert f"warning: {kept} is forgotten ({head[:12]})" in run.err, run.err
    assert "not forgotten" not in run.err, run.err
    assert not (repo.root / kept).exists()
    assert kept not in hits(repo, "zebra")


def test_a_forget_whose_index_stayed_locked_says_how_to_keep_the_note_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another git held git's index through the whole wait after the forget's commit: the
    warning said the note was forgotten "but ... `git status` shows it as staged for deletion
    (once that ends, `git log -1 ...`)": git's index still held the note (`AD`), staged to come
    back with the person's next commit, and the way out (`git reset -q -- <note>`) was lost."""
    repo, kept, _ = _indexed_note(tmp_path)
    real_update = commit_module.update_user_index
    lock = repo.root / ".git" / "index.lock"

    def a_git_holding_the_index(
        git_repo: Any, paths: Any, commit: str, deadline: float, **words: str
    ) -> None:
        repo.git("reset", "-q", "HEAD~", "--", kept)  # the move's own reset gave up on it too
        lock.write_bytes(b"")  # another git's, for all of memidx's wait
        try:
            real_update(git_repo, paths, commit, min(deadline, time.monotonic() + 0.2), **words)
        finally:
            lock.unlink()

    monkeypatch.setattr(commit_module, "update_user_index", a_git_holding_the_index)

    # the move's own follow gave up (a git failing there): memidx resets the index itself after
    def a_follow_that_fails(*_: object) -> Callable[[str], tuple[str, ...]]:
        return lambda _: ("no-such-command",)

    monkeypatch.setattr(commit_module, "index_follows", a_follow_that_fails)

    run = repo.memidx("forget", kept)

    assert run.code == 0, run.err
    assert f"warning: {kept} is forgotten (" in run.err, run.err
    assert repo.git("status", "--porcelain", "--", kept) == f"AD {kept}\n"
    assert "staged for deletion" not in run.err, run.err
    assert f"git reset -q -- {kept}" in run.err, run.err
    repo.git("reset", "-q", "--", kept)  # as the warning says
    assert repo.git("status", "--porcelain", "--", kept) == ""
