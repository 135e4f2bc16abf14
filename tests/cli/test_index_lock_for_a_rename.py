"""memidx's changes of git's index hold `.git/index.lock` only for a rename, never while a git
process runs (memidx/git/index_copy.py, memidx/git/index_edit.py): a person's `git add` at
the very moment memidx's git command runs succeeds, and both changes stand. The put-back and
the take-out held it for four to six git processes, the index's follow (`git reset -q <commit>
-- <paths>`) and a former writer's staged segments (`git update-index --force-remove`) ran on
git's index itself (git holds its lock throughout): the person's add failed with "index.lock:
File exists" (tests/benchmark/lock_clash.py counts them under load)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.index_edit import HELD, put_back_entry, take_out_entry
from memidx.git.plumbing import Plumbing
from tests.git_shims import put_git_first
from tests.helpers import NotesRepo, started_memory
from tests.memories import TAKEN as TEXT
from tests.memories import TAKEN_REF as REF
from tests.memories import taken_along

# a `git` first on PATH: at memidx's first `$WATCHED`, the person's `git add` runs (their own
# git, on git's index); what fails, and a memidx git run on git's index itself, go to $LOG
PERSON_AT_THE_STEP = """#!/bin/sh
case " $* " in *" $WATCHED "*)
  [ -n "$GIT_INDEX_FILE" ] || echo "memidx ran git $* on git's index itself" >> "$LOG"
  if [ ! -e "$MARK" ]; then
    : > "$MARK"
    ( cd "$ROOT" && env -u GIT_INDEX_FILE "$REAL_GIT" add person.txt ) 2>> "$LOG" || \\
      echo "the person's git add failed" >> "$LOG"
  fi ;;
esac
exec "$REAL_GIT" "$@"
"""
pytestmark = pytest.mark.skipif(SHELL is None, reason="a POSIX shell plays the person")


def _person_at(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, watched: str
) -> Path:
    """The shim on PATH, the person's file written (to be added at memidx's `watched`); the
    log it writes."""
    (repo.root / "person.txt").write_text("the person's work\n")
    log = tmp_path / "log"
    log.write_text("")
    put_git_first(
        monkeypatch, tmp_path / "bin", PERSON_AT_THE_STEP,
        WATCHED=watched, LOG=str(log), MARK=str(tmp_path / "mark"), ROOT=str(repo.root),
    )  # fmt: skip
    return log


def _memidx_committed_over_the_index(tmp_path: Path) -> tuple[NotesRepo, str]:
    """A clone where memidx committed a note's second line past git's index (HEAD moved by
    update-ref, the index still at the first): what the index follow brings the index to."""
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)
    repo.git("add", REF)
    repo.git("commit", "-q", "--no-verify", "-m", "disk")
    repo.write(REF, TEXT + "\nA second line, committed by memidx.\n")
    commit = repo.git("commit-tree", "-p", "HEAD", "-m", "memidx", _tree_with(repo)).strip()
    repo.git("update-ref", "HEAD", commit)
    return repo, commit


def _until_done(step: Callable[[], tuple[int, str]]) -> tuple[int, str]:
    """The change tried again while git's index changed under it (as index_follow does)."""
    done = step()
    for _ in range(5):
        if done[0] != HELD:
            break
        time.sleep(0.05)
        done = step()
    return done


def _after(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, log: Path) -> str:
    monkeypatch.undo()
    assert (log.parent / "mark").exists()  # the person did run at memidx's step
    assert log.read_text() == ""
    assert not (repo.root / ".git" / "index.lock").exists()
    return repo.git("status", "--porcelain", "--untracked-files=all")


def test_the_index_follow_leaves_git_s_index_to_the_person_s_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.git.commit import update_user_index

    repo, commit = _memidx_committed_over_the_index(tmp_path)
    log = _person_at(repo, tmp_path, monkeypatch, "reset")

    update_user_index(Plumbing(repo.root), [REF], commit, time.monotonic() + 5, done="", shows="")

    assert _after(repo, monkeypatch, log) == "A  person.txt\n"  # both: the note as committed


def test_the_put_back_leaves_git_s_index_to_the_person_s_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)
    repo.commit("disk")
    repo.git("rm", "-q", "--cached", REF)  # as a take-out left it on main
    blob = repo.git("rev-parse", f"HEAD:{REF}").strip()
    log = _person_at(repo, tmp_path, monkeypatch, "update-index")

    put = _until_done(lambda: put_back_entry(repo.root, repo.root / ".git", REF, "100644", blob))

    assert put == (0, "")
    assert _after(repo, monkeypatch, log) == "A  person.txt\n"


@pytest.mark.parametrize("staged", [True, False])
def test_the_take_out_leaves_git_s_index_to_the_person_s_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, staged: bool
) -> None:
    repo, blob = taken_along(tmp_path)
    if staged:
        repo.git("add", REF)
    log = _person_at(repo, tmp_path, monkeypatch, "update-index" if staged else "hash-object")

    taken = _until_done(lambda: take_out_entry(repo.root, repo.root / ".git", REF, blob))

    assert taken == (0, "")
    assert _after(repo, monkeypatch, log) == "A  person.txt\n"
    assert not (repo.root / REF).exists()
    assert not list((repo.root / ".git").glob("memidx-*"))  # no copy left


def test_a_former_writer_s_segments_leave_git_s_index_to_the_person_s_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.config import load_config
    from memidx.git.repo import GitRepo
    from memidx.haystack.identity import _unstaged  # pyright: ignore[reportPrivateUsage]

    repo = started_memory(tmp_path)
    segment = repo.write("notes/haystack/old-writer/0001.krd", "records\n")
    repo.git("add", "notes/haystack/old-writer/0001.krd")
    log = _person_at(repo, tmp_path, monkeypatch, "update-index")

    said = _unstaged(GitRepo(repo.root), load_config(repo.root), [segment])

    assert said is None
    status = _after(repo, monkeypatch, log)
    assert status == "A  person.txt\n?? notes/haystack/old-writer/0001.krd\n"


def _tree_with(repo: NotesRepo) -> str:
    """HEAD's tree with the work tree's REF in it (a temporary index: git's is untouched)."""
    import subprocess

    from tests.helpers import clean_env

    env = clean_env(GIT_INDEX_FILE=str(repo.root / ".git" / "test-index"))
    for args in (["read-tree", "HEAD"], ["add", REF], ["write-tree"]):
        done = subprocess.run(
            ["git", *args], cwd=repo.root, env=env, capture_output=True, text=True, check=True
        )
    (repo.root / ".git" / "test-index").unlink()
    return done.stdout.strip()
