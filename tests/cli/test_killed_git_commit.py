"""A `git commit -a` (or `git commit <paths>`) writes the index it commits in `.git/index.lock`
and renames it over git's index only once HEAD moved. Killed in between (SIGKILL from its
reference-transaction hook here; a power cut), it leaves the lock holding that index: `memidx
status` called it a killed git's "as it wrote git's index" and said `rm`, which left git's index
before the commit, and the person's next commit undid it. Now status says to rename the lock
over the index; killed before HEAD moved (a pre-commit hook, the editor) `rm` stays right:
git's index is as the person staged it, the commit's files in the work tree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from shlex import quote

import pytest

from tests.cli.test_take_out_killed import _until_left_behind  # pyright: ignore[reportPrivateUsage]
from tests.helpers import NotesRepo, clean_env, started_memory

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="a lock no process holds is seen in /proc"
)
# kills the git that runs it: at the reference-transaction's `committed` (HEAD moved), or at
# once (pre-commit: before the commit is made)
KILLER = """#!/bin/sh
[ "$0" != "${0%%reference-transaction}" ] && [ "$1" != committed ] && exit 0
kill -9 $PPID
"""


def _killed_commit(repo: NotesRepo, hook: str, *how: str) -> Path:
    """notes/a.md staged edited, notes/b.md edited unstaged; a `git commit <how>` killed by
    `hook`: the lock it left."""
    repo.write("notes/a.md", "# A\n\nThe first words of a note.\n")
    repo.write("notes/b.md", "# B\n\nThe first words of another.\n")
    repo.commit("two notes")
    repo.write("notes/a.md", "# A\n\nThe first words of a note, staged.\n")
    repo.git("add", "notes/a.md")
    repo.write("notes/b.md", "# B\n\nThe words committed by the killed git.\n")
    return _killed(repo, hook, "-m", "killed", *how)


def _killed(repo: NotesRepo, hook: str, *args: str) -> Path:
    """A `git commit -q <args>` killed by `hook`: the index.lock it left, no process holding it."""
    hooks = repo.root / ".git" / "hooks"
    (hooks / hook).write_text(KILLER)
    (hooks / hook).chmod(0o755)
    repo.git("commit", "-q", *args, check=False)
    (hooks / hook).unlink()
    lock = repo.root / ".git" / "index.lock"
    assert lock.exists()
    _until_left_behind(lock, repo.root)
    return lock


def _cut_short(lock: Path) -> None:
    """The lock as a power cut leaves it before git wrote it out, its times as git wrote it."""
    written = lock.stat()
    lock.write_bytes(lock.read_bytes()[:-30])
    os.utime(lock, ns=(written.st_atime_ns, written.st_mtime_ns))


@pytest.mark.parametrize("how", [("-a",), ("--", "notes/b.md")])
def test_a_git_killed_once_its_commit_moved_head_is_told_to_rename_its_lock(
    tmp_path: Path, how: tuple[str, ...]
) -> None:
    repo = started_memory(tmp_path)
    lock = _killed_commit(repo, "reference-transaction", *how)
    assert repo.git("log", "-1", "--format=%s").strip() == "killed"  # HEAD moved

    data = repo.memidx("status", "--json").json()

    index = lock.with_name("index")
    assert data["git_lock"]["kind"] == "git-commit", data["git_lock"]
    assert data["git_lock"]["clear"] == f"mv {lock} {index}"
    assert "once its commit moved HEAD" in data["git_lock"]["said"]
    status = repo.memidx("status")
    assert f"then run mv {lock} {index}" in status.out, status.out
    lock.rename(index)  # as told: nothing the commit made is undone, nothing staged lost
    changed = repo.git("status", "--porcelain", "--", "notes").splitlines()
    assert changed == (["M  notes/a.md"] if how != ("-a",) else []), changed


@pytest.mark.parametrize("how", [("-a",), ("--", "notes/b.md")])
def test_a_git_killed_before_its_commit_is_told_to_remove_its_lock(
    tmp_path: Path, how: tuple[str, ...]
) -> None:
    repo = started_memory(tmp_path)
    lock = _killed_commit(repo, "pre-commit", *how)
    assert repo.git("log", "-1", "--format=%s").strip() == "two notes"  # HEAD unmoved

    data = repo.memidx("status", "--json").json()

    assert data["git_lock"]["kind"] == "git" and data["git_lock"]["clear"] == f"rm {lock}"
    lock.unlink()  # as told: what the person staged stays staged, the edit in the work tree
    changed = repo.git("status", "--porcelain", "--", "notes").splitlines()
    assert changed == ["M  notes/a.md", " M notes/b.md"], changed


@pytest.mark.parametrize("how", [("-a",), ("--", "notes/b.md")])
def test_a_lock_cut_short_once_head_moved_is_removed_with_the_commit_s_paths_reset(
    tmp_path: Path, how: tuple[str, ...]
) -> None:
    """Never renamed over the index (git reads it all the same: it checks no sum), and never
    `rm` alone either: that left git's index before the commit, which the next one undid."""
    repo = started_memory(tmp_path)
    lock = _killed_commit(repo, "reference-transaction", *how)
    _cut_short(lock)

    data = repo.memidx("status", "--json").json()

    paths = [":(literal)notes/a.md"] if how == ("-a",) else []
    paths.append(":(literal)notes/b.md")
    clear = f"rm {lock} && git -C {repo.root} reset -q HEAD -- {' '.join(map(quote, paths))}"
    assert data["git_lock"]["kind"] == "git-commit", data["git_lock"]
    assert data["git_lock"]["clear"] == clear
    assert "once its commit moved HEAD, cut short" in data["git_lock"]["said"]
    lock.unlink()  # as told
    repo.git("reset", "-q", "HEAD", "--", *paths)
    changed = repo.git("status", "--porcelain", "--", "notes").splitlines()
    assert changed == (["M  notes/a.md"] if how != ("-a",) else []), changed  # nothing undone


@pytest.mark.parametrize(("how", "many"), [(("-a",), 0), (("--", "notes/b.md"), 0), (("-a",), 300)])
def test_a_lock_cut_short_resets_a_staged_edit_the_work_tree_took_back_as_commit_a_did(
    tmp_path: Path, how: tuple[str, ...], many: int
) -> None:
    """notes/a.md staged edited, then put back in the work tree as HEAD has it: `git commit -a`
    stages it back as HEAD has it, so the commit does not change it and its paths did not name
    it; reset without it, git's index kept the staged edit the person took back, and their next
    commit committed it. A `git commit <paths>` leaves it staged (git's next-index lock tells
    the two apart). `many`: files the commit changed too, past what one command lists."""
    repo = started_memory(tmp_path)
    committed = "# A\n\nThe first words of a note.\n"
    names = [f"notes/many/a note with a rather long name {n:03}.md" for n in range(many)]
    for name in names:
        repo.write(name, "# A note\n\nIts first words.\n")
    repo.write("notes/a.md", committed)
    repo.write("notes/b.md", "# B\n\nThe first words of another.\n")
    repo.commit("two notes")
    for name in names:
        repo.write(name, "# A note\n\nIts words, committed by the killed git.\n")
    repo.write("notes/a.md", "# A\n\nThe first words of a note, staged.\n")
    repo.git("add", "notes/a.md")
    repo.write("notes/a.md", committed)  # taken back in the work tree
    repo.write("notes/b.md", "# B\n\nThe words committed by the killed git.\n")
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(KILLER)
    hook.chmod(0o755)
    repo.git("commit", "-q", "-m", "killed", *how, check=False)
    hook.unlink()
    lock = repo.root / ".git" / "index.lock"
    _until_left_behind(lock, repo.root)
    written = lock.stat()
    lock.write_bytes(lock.read_bytes()[:-30])  # a power cut before it was written out
    os.utime(lock, ns=(written.st_atime_ns, written.st_mtime_ns))

    data = repo.memidx("status", "--json").json()

    assert data["git_lock"]["kind"] == "git-commit", data["git_lock"]
    done = subprocess.run(["sh", "-c", data["git_lock"]["clear"]], env=clean_env(), check=False)
    assert done.returncode == 0
    changed = repo.git("status", "--porcelain", "--", "notes").splitlines()
    assert changed == ([] if how == ("-a",) else ["MM notes/a.md"]), data["git_lock"]["clear"]


def test_an_amend_s_lock_cut_short_resets_the_paths_it_put_back_as_the_parent_had_them(
    tmp_path: Path,
) -> None:
    """`git commit --amend -a` that put notes/a.md back as the parent has it: the paths to reset
    are those changed from the commit HEAD was at (its reflog's), not from HEAD's parent, which
    missed notes/a.md, and the next commit put back the words the amend took out."""
    repo = started_memory(tmp_path)
    repo.write("notes/a.md", "# A\n\nThe first words of a note.\n")
    repo.commit("the parent")
    repo.write("notes/a.md", "# A\n\nWords the amend takes out again.\n")
    repo.write("notes/b.md", "# B\n\nAnother note.\n")
    repo.commit("amended")
    repo.write("notes/a.md", "# A\n\nThe first words of a note.\n")  # as the parent has it
    lock = _killed(repo, "reference-transaction", "--amend", "-a", "-m", "amended")
    _cut_short(lock)

    data = repo.memidx("status", "--json").json()

    assert data["git_lock"]["kind"] == "git-commit", data["git_lock"]
    clear = f"rm {lock} && git -C {repo.root} reset -q HEAD -- {quote(':(literal)notes/a.md')}"
    assert data["git_lock"]["clear"] == clear
    lock.unlink()  # as told
    repo.git("reset", "-q", "HEAD", "--", ":(literal)notes/a.md")
    assert repo.git("status", "--porcelain", "--", "notes") == ""  # nothing to undo the amend


def test_a_lock_cut_short_by_a_commit_of_many_files_is_cleared_by_a_short_command(
    tmp_path: Path,
) -> None:
    """A commit of hundreds of files: each named in the command made a status line of tens of
    kilobytes (past 128 KiB, a command `sh -c` could not even run); git lists them itself,
    and what the person staged apart from the commit stays staged."""
    repo = started_memory(tmp_path)
    names = [f"notes/many/a note with a rather long name {n:03}.md" for n in range(400)]
    for name in names:
        repo.write(name, "# A note\n\nIts first words.\n")
    repo.write("notes/a.md", "# A\n\nThe first words of a note.\n")
    repo.commit("many notes")
    for name in names:
        repo.write(name, "# A note\n\nIts words, committed by the killed git.\n")
    repo.write("notes/a.md", "# A\n\nStaged, not committed.\n")
    repo.git("add", "notes/a.md")
    lock = _killed(repo, "reference-transaction", "-m", "killed", "--", "notes/many")
    _cut_short(lock)

    data = repo.memidx("status", "--json").json()

    assert data["git_lock"]["kind"] == "git-commit", data["git_lock"]
    assert len(data["git_lock"]["clear"]) < 1024, len(data["git_lock"]["clear"])
    done = subprocess.run(["sh", "-c", data["git_lock"]["clear"]], env=clean_env(), check=False)
    assert done.returncode == 0
    changed = repo.git("status", "--porcelain", "--", "notes").splitlines()
    assert changed == ["M  notes/a.md"], changed[:3]  # the commit kept, the staged edit too


def test_a_killed_commit_of_paths_leaves_its_next_index_named_once_the_index_lock_goes(
    tmp_path: Path,
) -> None:
    """git's own lock for the index a `git commit <paths>` builds (`next-index-<pid>.lock`):
    named by nobody, left for good (a git given that pid could not commit paths)."""
    repo = started_memory(tmp_path)
    lock = _killed_commit(repo, "reference-transaction", "--", "notes/b.md")
    lock.rename(lock.with_name("index"))  # as status says first
    (left,) = (repo.root / ".git").glob("next-index-*.lock")
    _until_left_behind(left, repo.root)
    assert repo.memidx("reconcile", "--fix").code == 0  # the killed commit's notes indexed

    data = repo.memidx("status", "--json").json()
    status = repo.memidx("status")

    assert data["git_lock"] == {
        "path": str(left), "kind": "next-index", "said": data["git_lock"]["said"],
        "clear": f"rm {left}", "blocks": False,
    }  # fmt: skip
    # it fails only a `git commit <paths>` of a git given that pid: the person's git works
    assert data["healthy"] and status.code == 0, status.out
    repo.write("notes/b.md", "# B\n\nCommitted beside the lock.\n")
    repo.git("commit", "-q", "-m", "beside it", "--", "notes/b.md")
    assert "`git commit <paths>` that was killed" in data["git_lock"]["said"]
    line = next(line for line in status.out.splitlines() if line.startswith("git lock:"))
    assert line.endswith(f"check that no git command is running, then remove it: rm {left}")
    assert "every git command" not in line, line


def test_a_commit_killed_before_head_moved_whose_lock_holds_head_keeps_what_was_staged(
    tmp_path: Path,
) -> None:
    """A person stages an edit, puts the file back as HEAD has it, and a `git commit -a` is
    killed in its pre-commit hook: the lock holds HEAD's file where git's index holds the staged
    edit, as a commit killed after HEAD moved leaves it. HEAD did not move: `mv` would drop the
    staged edit (held nowhere else), `rm` keeps it."""
    repo = started_memory(tmp_path)
    committed = "# A\n\nThe first words of a note.\n"
    repo.write("notes/a.md", committed)
    repo.commit("a note")
    repo.write("notes/a.md", "# A\n\nThe first words of a note, staged.\n")
    repo.git("add", "notes/a.md")
    repo.write("notes/a.md", committed)  # the work tree back as HEAD has it
    lock = _killed(repo, "pre-commit", "-a", "-m", "killed")
    assert repo.git("log", "-1", "--format=%s").strip() == "a note"  # HEAD unmoved

    data = repo.memidx("status", "--json").json()

    assert data["git_lock"]["kind"] == "git" and data["git_lock"]["clear"] == f"rm {lock}"
    lock.unlink()  # as told: the staged edit stays staged
    changed = repo.git("status", "--porcelain", "--", "notes").splitlines()
    assert changed == ["MM notes/a.md"], changed
