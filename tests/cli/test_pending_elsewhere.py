"""A note left pending on one branch, then a person's switch to another: it waited for its
branch to be checked out again, for ever on one that stayed unmerged, while `memidx sync` said
nothing. It is committed on its own branch by plumbing, the person's work tree (but for the
note's file, which git would refuse the switch back over), index and HEAD left as they were."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.git import checkouts, side_commit
from memidx.git.repo import GitRepo
from memidx.memory.pending_notes import keep
from tests.helpers import NotesRepo, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
CACHE = "The build cache is keyed by the lock file; touch it to rebuild from scratch.\n"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return started_memory(tmp_path)


def _pending_on_main_then_switched(repo: NotesRepo, *, create: bool = True) -> None:
    """As a `remember` on main leaves it while git is busy, then `git switch -c feature`
    (`git switch feature`, not `create`d)."""
    if not create:
        repo.git("switch", "-q", "main")
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("switch", "-q", *(["-c"] if create else []), "feature")


def test_a_note_pending_for_a_branch_not_checked_out_is_committed_there(repo: NotesRepo) -> None:
    _pending_on_main_then_switched(repo)
    repo.write("notes/start.md", "# Start\n\nEdited by the person, not staged.\n")
    repo.write("notes/staged.md", "# Staged\n\nStaged by the person on feature.\n")
    repo.git("add", "notes/staged.md")
    index_before = repo.git("ls-files", "-s")
    head_before = repo.git("rev-parse", "HEAD")
    status = repo.memidx("status", "--json").json()["pending_notes"]
    assert "commits it on main without checking it out" in status[0]["why"], status

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert f"committed {REF} on main, the branch it was remembered on" in synced.err, synced.err
    assert repo.git("log", "-1", "--format=%s", "main") == "memidx remember: Disk full\n"
    assert repo.git("show", f"main:{REF}") == TEXT
    assert repo.git("rev-parse", "HEAD") == head_before  # feature: not moved
    assert repo.git("symbolic-ref", "HEAD") == "refs/heads/feature\n"
    assert repo.git("ls-files", "-s") == index_before  # the person's staged work as it was
    assert repo.git("status", "--porcelain") == "A  notes/staged.md\n M notes/start.md\n"
    assert repo.memidx("status", "--json").json()["pending_notes"] == []
    repo.git("switch", "-q", "main")  # refused while the untracked note was in the way
    assert (repo.root / REF).read_text() == TEXT


def test_a_remember_on_the_other_branch_commits_both_where_they_belong(repo: NotesRepo) -> None:
    _pending_on_main_then_switched(repo)

    said = repo.memidx_process("remember", "--title", "Cache key", "--json", stdin=CACHE)

    assert said.code == 0 and said.json()["committed"], said.err
    assert "another git held the clone" not in said.err and "not committed yet" not in said.err
    assert repo.git("log", "--format=%s", "main", "-1") == "memidx remember: Disk full\n"
    assert repo.git("log", "--format=%s", "feature", "-1") == "memidx remember: Cache key\n"
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "feature")
    assert repo.git("status", "--porcelain") == ""


def test_a_note_of_a_branch_checked_out_in_another_work_tree_waits(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """A commit on a branch another work tree has checked out went under its index (its
    `git status` then showed the note deleted, staged): it waits, and status says why."""
    _pending_on_main_then_switched(repo)
    repo.git("switch", "-q", "--detach")
    repo.git("worktree", "add", "-q", str(tmp_path / "other"), "main")
    repo.git("switch", "-q", "feature")
    main_before = repo.git("rev-parse", "main")

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert repo.git("rev-parse", "main") == main_before
    assert (repo.root / REF).read_text() == TEXT
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert "is checked out in another work tree" in note["why"], note


def test_a_note_the_person_staged_on_the_other_branch_is_left_to_them(repo: NotesRepo) -> None:
    _pending_on_main_then_switched(repo)
    repo.git("add", REF)
    main_before = repo.git("rev-parse", "main")

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert "is left to your commit there" in synced.err, synced.err
    assert repo.git("rev-parse", "main") == main_before
    assert repo.git("status", "--porcelain") == f"A  {REF}\n"
    assert repo.memidx("status", "--json").json()["pending_notes"] == []


def test_a_branch_checked_out_while_its_note_is_committed_is_left_as_it_was(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `git worktree add` (or a switch) of the note's branch while memidx built its commit:
    the commit moved the branch under that work tree's index, whose `git status` then said the
    note was deleted, staged, for the person's next commit there to delete it."""
    _pending_on_main_then_switched(repo)
    main_before = repo.git("rev-parse", "main")
    other = tmp_path / "other"
    real_build = side_commit._build  # pyright: ignore[reportPrivateUsage]

    def person_checks_out_main(config: Config, tip: str, ref: str, blob: str, subject: str) -> str:
        repo.git("worktree", "add", "-q", str(other), "main")
        return real_build(config, tip, ref, blob, subject)

    monkeypatch.setattr(side_commit, "_build", person_checks_out_main)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert repo.git("rev-parse", "main") == main_before
    assert repo.git("-C", str(other), "status", "--porcelain") == ""
    assert (repo.root / REF).read_text() == TEXT  # still pending, in this work tree
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert "is checked out in another work tree" in note["why"], note


def test_a_rebase_begun_at_the_notes_commit_is_left_to_end(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebase of the branch begun in another work tree once memidx moved it, built on the
    note's commit: moving the branch back (as for a checkout that read the tip before) made
    the rebase's end fail, the branch no longer where it began."""
    _pending_on_main_then_switched(repo)
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", "--detach", str(other), "feature")
    rebase = ("rebase", "-q", "-i", "main~1", "main")  # stops at a break, before its pick
    looks = _at_the_look_once_moved(
        monkeypatch,
        lambda: repo.git("-C", str(other), "-c", "sequence.editor=sed -i 1ibreak", *rebase),
    )

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert looks == [1, 2], looks
    assert repo.git("show", f"main:{REF}") == TEXT
    repo.git("-C", str(other), "rebase", "--continue")  # its end moves main from where it began
    assert repo.git("show", f"main:{REF}") == TEXT
    assert repo.memidx("status", "--json").json()["pending_notes"] == []


@pytest.mark.parametrize("rebasing", [False, True])
def test_status_names_the_work_tree_that_holds_the_branch_and_what_commits_it(
    repo: NotesRepo, tmp_path: Path, rebasing: bool
) -> None:
    """It said "committed once main is checked out here", which git refuses while another
    work tree has main: what commits it is a sync here once that work tree lets main go."""
    _pending_on_main_then_switched(repo)
    other = tmp_path / "other"
    if rebasing:  # a rebase of main there, stopped at a break
        repo.git("worktree", "add", "-q", "--detach", str(other), "main")
        rebase = ("-c", "sequence.editor=sed -i 1ibreak", "rebase", "-q", "-i", "--root", "main")
        repo.git("-C", str(other), *rebase)
    else:
        repo.git("worktree", "add", "-q", str(other), "main")

    [note] = repo.memidx("status", "--json").json()["pending_notes"]

    how = "is being rebased" if rebasing else "is checked out"
    assert f"its branch, main, {how} in another work tree ({other})" in note["why"], note
    assert f"a `git switch` there, or `git worktree remove {other}`" in note["why"], note
    assert "the next `memidx sync` (or `remember`, or a git hook) here commits" in note["why"]
    assert "checked out here" not in note["why"], note
    if rebasing:
        repo.git("-C", str(other), "rebase", "--abort")
    repo.git("-C", str(other), "switch", "-q", "--detach")
    synced = repo.memidx("sync")
    assert f"committed {REF} on main" in synced.err, synced.err
    assert repo.git("show", f"main:{REF}") == TEXT


def _at_the_look_once_moved(
    monkeypatch: pytest.MonkeyPatch, person: Callable[[], object]
) -> list[int]:
    """Run `person`'s git command at memidx's second look for a work tree holding the branch
    (the first is before the commit is built, the second once the branch is moved to it)."""
    real_holder = checkouts._holder  # pyright: ignore[reportPrivateUsage]
    looks: list[int] = []

    def holder(repo: GitRepo, branch: str) -> Path | None:
        looks.append(len(looks) + 1)
        if len(looks) == 2:
            person()
        return real_holder(repo, branch)

    monkeypatch.setattr(checkouts, "_holder", holder)
    return looks


def test_a_checkout_that_read_the_notes_commit_keeps_it(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `git switch main` in another work tree once memidx moved main: it read the note's
    commit, and main moved back under it left `git status` there saying "A" for the note,
    staged for the person's own next commit, while it stayed pending here."""
    _pending_on_main_then_switched(repo)
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", "--detach", str(other), "feature")
    looks = _at_the_look_once_moved(
        monkeypatch, lambda: repo.git("-C", str(other), "switch", "-q", "main")
    )

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert looks == [1, 2], looks
    assert repo.git("log", "-1", "--format=%s", "main") == "memidx remember: Disk full\n"
    assert repo.git("-C", str(other), "status", "--porcelain") == ""
    assert (other / REF).read_text() == TEXT
    assert not (repo.root / REF).exists()
    assert repo.memidx("status", "--json").json()["pending_notes"] == []


def test_a_bare_repositorys_head_is_no_work_tree(tmp_path: Path) -> None:
    """Work trees of a bare clone: the bare repository's HEAD names a branch that no work tree
    has checked out (git lets one check it out), yet its note waited, and status named the bare
    repository's folder as "another work tree"."""
    source = NotesRepo(tmp_path / "source")
    source.write(".gitignore", ".memidx/\n")
    source.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    source.commit("start")
    bare = tmp_path / "memory.git"
    source.git("clone", "-q", "--bare", str(source.root), str(bare))
    source.git("-C", str(bare), "worktree", "add", "-q", "-b", "feature", str(tmp_path / "w"))
    repo = NotesRepo(tmp_path / "w", init=False)
    assert repo.memidx("ingest").code == 0
    _pending_on_main_then_switched(repo, create=False)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert f"committed {REF} on main" in synced.err, synced.err
    assert repo.git("show", f"main:{REF}") == TEXT
    assert repo.memidx("status", "--json").json()["pending_notes"] == []


def test_a_branch_held_by_the_main_work_tree_is_never_said_removable(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """The note waits in a linked work tree while the clone's main one has its branch: the
    line said `git worktree remove <main work tree>`, which git refuses ("is a main working
    tree")."""
    from tests.helpers import run_in_process

    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "-b", "feature", str(linked))
    (linked / REF).write_text(TEXT)
    keep(load_config(linked, env={}), REF, "Disk full", TEXT, "refs/heads/feature")
    repo.git("-C", str(linked), "switch", "-q", "-c", "other")
    repo.git("switch", "-q", "feature")

    [note] = run_in_process(linked, "status", "--json").json()["pending_notes"]

    assert f"in another work tree ({repo.root})" in note["why"], note
    assert "a `git switch` there)" in note["why"], note
    assert "worktree remove" not in note["why"], note
