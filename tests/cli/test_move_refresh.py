"""The move's follow refreshes the index entries of the paths it wrote, and no other.

From git 2.36 `git reset -q <new> -- <paths>` refreshes every entry of the index: on a clone of
30,000 files whose stat had changed, each forget and remember paid 0.4-1.2 s for it. Skipped
with `--no-refresh` alone, the entries of the paths reset were left without their stat: a
person's `git pull` that merged as memidx committed died at "fatal: stash failed"
(tests/cli/test_late_merge.py) and `git diff-files` listed the notes as modified. Now each way
the move follows (the copy made before it, memidx's own follow, the move's shell, the reset
after it) refreshes those paths alone (memidx.git.index_refresh): a note the move did not
touch keeps the stat its entry had (`git ls-files --debug`), and the note committed has its
own (`git diff-files` lists it not)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.config import load_config
from memidx.git import commit, index_copy, index_swap, move_follow
from memidx.git.commit import commit_paths
from memidx.git.index_refresh import NO_REFRESH_FROM, git_version, stat_given, stat_less
from tests.helpers import NotesRepo

OTHER, DEPLOY = "notes/ops/other.md", "notes/ops/deploy.md"


def _entry_times(repo: NotesRepo, ref: str) -> str:
    """The ctime and mtime git's index holds for `ref` (`git ls-files --debug`)."""
    listed = repo.git("ls-files", "--debug", "--", ref).splitlines()
    return "\n".join(line.strip() for line in listed if line.strip().startswith(("ctime", "mtime")))


def _memory_with_a_touched_note(tmp_path: Path) -> tuple[NotesRepo, str]:
    """A memory whose OTHER note's stat changed since git's index read it (its bytes did not),
    and the entry times the index holds for it; a note DEPLOY beside it."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.note("ops/other.md", "Other", "The other note, its stat touched.")
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("a note")
    seen = (repo.root / OTHER).stat()
    os.utime(repo.root / OTHER, ns=(seen.st_atime_ns, seen.st_mtime_ns + 5_000_000_000))
    assert repo.git("diff-files", "--name-only") == f"{OTHER}\n"  # stat-dirty
    return repo, _entry_times(repo, OTHER)


def _not_refreshed(repo: NotesRepo, before: str) -> None:
    if git_version() >= NO_REFRESH_FROM:  # before 2.36 `reset -q` refreshed nothing anyway
        assert _entry_times(repo, OTHER) == before  # its bytes not read again
    assert repo.git("diff-files", "--name-only") == f"{OTHER}\n"


def _none(*_: object, **__: object) -> None:
    return None


def _never(*_: object, **__: object) -> bool:
    return False


def _nothing(*_: object, **__: object) -> Callable[[str], Sequence[str]]:
    return lambda _: ()


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs with a POSIX shell")
@pytest.mark.parametrize(
    "route", ["copy", "own-follow", "shell", "shell-from-memory", "reset-after"]
)
def test_the_move_refreshes_the_entry_of_the_note_it_committed_and_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    """shell-from-memory: a note committed from memory (remember's), whose checkout the
    shell's redo runs as a reset: a plain `reset -q` there (the shell knew no git version)."""
    repo, before = _memory_with_a_touched_note(tmp_path)
    ref = repo.note("agent.md", "Agent's note", "remembered by an agent")
    if route != "copy":  # no copy of the index made before the move: memidx's own follow
        monkeypatch.setattr(index_swap, "prepare", _none)
    if route.startswith("shell"):  # nor memidx's own follow: the move's shell
        monkeypatch.setattr(move_follow, "followed", _never)
    if route == "reset-after":  # no git command with the move (as on Windows): the reset after
        monkeypatch.setattr(commit, "index_follows", _nothing)
    memory = {ref: (repo.root / ref).read_bytes()} if route == "shell-from-memory" else None

    commit_paths(load_config(repo.root, env={}), [ref], "memidx remember: Agent's note",
                 written=memory)  # fmt: skip

    assert repo.git("ls-files", "--", ref) == f"{ref}\n"
    assert repo.git("diff-files", "--name-only", "--", ref) == ""  # its entry has its stat
    _not_refreshed(repo, before)
    assert repo.git("status", "--porcelain") == ""


@pytest.mark.parametrize("move", ["forget", "remember"])
def test_a_forget_or_remember_refreshes_no_other_entry(tmp_path: Path, move: str) -> None:
    repo, before = _memory_with_a_touched_note(tmp_path)

    if move == "forget":
        said = repo.memidx("forget", DEPLOY)
    else:
        said = repo.memidx("remember", "--title", "Rollback", stdin="Roll back on Fridays.\n")

    assert said.code == 0, said
    written = repo.git("ls-files", "--", "notes/rollback.md")
    assert written == ("" if move == "forget" else "notes/rollback.md\n")
    _not_refreshed(repo, before)  # and the note written has its stat: diff-files lists OTHER
    assert repo.git("status", "--porcelain") == ""


def test_only_an_entry_without_its_stat_is_given_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """stat_given ran on every remember (two copies of the index and a `git add --refresh`),
    where only the files the fast path's swap wrote after the index lack their stat."""
    repo = NotesRepo(tmp_path / "memory")
    ref = repo.note("agent.md", "Agent's note", "remembered by an agent")
    repo.commit("a note")
    git_dir, spec = repo.root / ".git", [f":(literal){ref}"]
    edits: list[Sequence[str]] = []
    edit = index_copy.edit_on_copy

    def counted(root: Path, git_dir: Path, args: Sequence[str]) -> tuple[int, str]:
        edits.append(args)
        return edit(root, git_dir, args)

    monkeypatch.setattr(index_copy, "edit_on_copy", counted)
    stat_given(repo.root, git_dir, spec)  # its entry has its stat (git add, git commit)
    assert edits == []

    blob = repo.git("rev-parse", f"HEAD:{ref}").strip()
    repo.git("update-index", "--cacheinfo", f"100644,{blob},{ref}")  # as the swap leaves it
    assert "ctime: 0:0" in repo.git("ls-files", "--debug", "--", ref)
    stat_given(repo.root, git_dir, spec)

    assert len(edits) == 1
    assert repo.git("diff-files", "--name-only") == ""  # given its stat


@pytest.mark.parametrize(
    ("kind", "version"),
    [("sha1", "2"), ("sha1", "3"), ("sha256", "2"), ("sha1", "4")],
)
def test_an_entry_s_stat_is_read_from_git_s_index_itself(
    tmp_path: Path, kind: str, version: str
) -> None:
    """stat_less reads the index file (v2, v3 with an entry's extended flags, SHA-1 or SHA-256);
    v4's compressed paths it cannot read: taken as lacking it (the refresh runs, as before)."""
    repo = NotesRepo(tmp_path / "memory", init=False)
    repo.git("init", "-q", "-b", "main", f"--object-format={kind}")
    ref = repo.note("agent.md", "Agent's note", "remembered by an agent")
    repo.note("ab/agent.md", "Another", "its path ends as the other's")
    repo.commit("notes")
    if version == "3":  # an entry with extended flags (skip-worktree) makes it v3
        repo.git("update-index", "--skip-worktree", "notes/ab/agent.md")
    repo.git("update-index", f"--index-version={version}")
    git_dir, spec = repo.root / ".git", [f":(literal){ref}"]
    unreadable = version == "4"

    assert stat_less(git_dir, spec) is unreadable  # git add, git commit: it has its stat
    assert stat_less(git_dir, [":(literal)notes/none.md"])  # not found: not known
    blob = repo.git("rev-parse", f"HEAD:{ref}").strip()
    repo.git("update-index", "--cacheinfo", f"100644,{blob},{ref}")  # as the swap leaves it
    assert stat_less(git_dir, spec)
    assert not stat_less(git_dir, [":(literal)notes/ab/agent.md"]) or unreadable


def test_the_tail_of_a_longer_name_is_not_read_as_the_entry(tmp_path: Path) -> None:
    """In a SHA-1 index, `backup/v1_0/<note>` (the note's name 47 bytes long: `0/` its flags
    read as a name's length) read as a SHA-256 entry at the note's name gave that other file's
    ctime: the note's stat-less entry (the swap's) was taken as having its stat, left so."""
    repo = NotesRepo(tmp_path / "memory")
    ref = "notes/ops/deploy-on-fridays-checklist-rollback.md"[:44] + ".md"
    assert len(ref) == 47
    for path in (f"backup/v1_0/{ref}", ref):  # the backup's entry sorts first
        repo.write(path, "# Deploy\n\nRoll back on Fridays.\n")
    repo.commit("a note and its backup")
    blob = repo.git("rev-parse", f"HEAD:{ref}").strip()
    repo.git("update-index", "--cacheinfo", f"100644,{blob},{ref}")  # as the swap leaves it
    assert repo.git("diff-files", "--name-only") == f"{ref}\n"

    assert stat_less(repo.root / ".git", [f":(literal){ref}"])
    stat_given(repo.root, repo.root / ".git", [f":(literal){ref}"])

    assert repo.git("diff-files", "--name-only") == ""  # given its stat
