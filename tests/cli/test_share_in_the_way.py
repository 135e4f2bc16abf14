"""`memidx share` whose merge cannot be made leaves the clone exactly as it was: HEAD, the
index, every file in the work tree (staged, unstaged, untracked, ignored), no merge in
progress, no stash; and says in one line which files and what to do. git's merge does not:
one stopped on a conflict leaves the other clone's notes staged in the work tree, one that is
not a fast-forward resets the clone and re-applies the person's work from a stash, and one
that can be made undoes an unstaged deletion without a word."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx import children
from memidx.config import Config, load_config
from memidx.errors import GitError, MemidxError
from memidx.memory import share as share_module
from memidx.memory import share_check
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo

THEIRS = "notes/machine-2-lesson-16-part-2.md"  # the other clone's new note


def behind(tmp_path: Path, *, diverged: bool) -> NotesRepo:
    """Clone two, behind the remote where clone one added THEIRS and edited seed.md; with a
    commit of its own when `diverged` (a real merge), else a fast-forward."""
    one, two = clones(tmp_path)
    one.note("machine-2-lesson-16-part-2.md", "Lesson 16", "what machine 2 learned")
    one.note("seed.md", "Seed", "machine 2 rewrote the seed")
    one.commit("one's notes")
    one.git("push", "-q", "origin", "main")
    (two.root / ".git" / "info" / "exclude").write_text(".memidx/\n")  # as memidx's own clones
    if diverged:
        two.note("ours.md", "Ours", "a note two has not pushed")
        two.commit("two's note")
    return two


def state(repo: NotesRepo) -> dict[str, str]:
    """Everything a share must not change: HEAD, the index, each file on disk, git's status."""
    files = {
        str(path.relative_to(repo.root)): hashlib.sha1(path.read_bytes()).hexdigest()
        for path in sorted((repo.root / "notes").rglob("*"))
        if path.is_file()
    }
    return {
        "HEAD": repo.git("rev-parse", "HEAD"),
        "index": repo.git("ls-files", "-s", "--debug"),
        "status": "".join(
            line
            for line in repo.git("status", "--porcelain=v1", "-uall", "--ignored").splitlines(True)
            if ".memidx/" not in line  # memidx's own: its locks, its writer id
        ),
        "stash": repo.git("stash", "list"),
        "merging": repo.git("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False),
        **files,
    }


def staged_then_deleted(repo: NotesRepo) -> None:
    (repo.root / THEIRS).write_text("the person's own draft\n")
    repo.git("add", THEIRS)
    (repo.root / THEIRS).unlink()


def deleted_unstaged(repo: NotesRepo) -> None:
    (repo.root / "notes" / "seed.md").unlink()


def untracked(repo: NotesRepo) -> None:
    (repo.root / THEIRS).write_text("the person's own draft\n")


def ignored(repo: NotesRepo) -> None:
    with (repo.root / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("notes/machine-2-*\n")
    (repo.root / THEIRS).write_text("the person's own draft, ignored\n")


def unrelated_staged_then_deleted(repo: NotesRepo) -> None:
    (repo.root / "notes" / "draft.md").write_text("a draft\n")
    repo.git("add", "notes/draft.md")
    (repo.root / "notes" / "draft.md").unlink()


def folder_in_the_way(repo: NotesRepo) -> None:
    (repo.root / "notes" / "machine-2-lesson-16-part-2.md").mkdir()
    (repo.root / "notes" / "machine-2-lesson-16-part-2.md" / "x.md").write_text("mine\n")


def conflicting(repo: NotesRepo) -> None:
    repo.note("seed.md", "Seed", "this clone rewrote the seed too")
    repo.commit("a clash")


def unresolved(repo: NotesRepo) -> None:
    """A `git stash pop` that stopped on a conflict: unmerged entries, no merge in progress
    (share said git read-tree's "You need to resolve your current index first", and to
    look at the files git names with git status --ignored)."""
    with (repo.root / "notes" / "ours.md").open("a") as file:
        file.write("stashed\n")
    repo.git("stash", "-q")
    with (repo.root / "notes" / "ours.md").open("a") as file:
        file.write("committed\n")
    repo.commit("an edit the stash clashes with")
    repo.git("stash", "pop", "-q", check=False)


CASES: list[tuple[Callable[[NotesRepo], None], bool, str]] = [
    (staged_then_deleted, True, f"{THEIRS} (staged and not staged)"),
    (staged_then_deleted, False, f"{THEIRS} (staged and not staged)"),
    (deleted_unstaged, True, "notes/seed.md (not staged)"),
    (deleted_unstaged, False, "notes/seed.md (not staged)"),
    (untracked, True, f"{THEIRS} (untracked)"),
    (untracked, False, f"{THEIRS} (untracked)"),
    (ignored, True, f"{THEIRS} (ignored)"),
    (ignored, False, f"{THEIRS} (ignored)"),
    (folder_in_the_way, False, f"{THEIRS} (a folder of untracked files)"),
    (conflicting, True, "merge conflict in notes/seed.md"),
    (unresolved, True, "unresolved conflicts in notes/ours.md"),
]


@pytest.mark.parametrize(("person", "diverged", "named"), CASES)
def test_a_share_that_cannot_merge_leaves_the_clone_exactly_as_it_was(
    tmp_path: Path, person: Callable[[NotesRepo], None], diverged: bool, named: str
) -> None:
    two = behind(tmp_path, diverged=diverged)
    person(two)
    before = state(two)

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert state(two) == before
    assert named in raised.value.message
    assert "nothing was merged, pulled or pushed" in raised.value.message
    assert "\n" not in raised.value.message + raised.value.hint


def test_what_the_merge_does_not_touch_stays_and_the_share_gets_through(tmp_path: Path) -> None:
    """A fast-forward and a real merge both carry what the person has elsewhere as it is: a
    staged note, a note staged then deleted, a file only intended to be added (git add -N), an
    unstaged edit. git's own merge refused a real merge with anything staged ("not uptodate.
    Cannot merge." for the git add -N file), so a note staged by hand stopped every share."""
    for diverged in (False, True):
        two = behind(tmp_path / str(diverged), diverged=diverged)
        (two.root / "notes" / "mine.md").write_text("the person's draft\n")
        two.git("add", "notes/mine.md")
        unrelated_staged_then_deleted(two)
        (two.root / "notes" / "intended.md").write_text("only intended\n")
        two.git("add", "-N", "notes/intended.md")
        with (two.root / "notes" / ("ours.md" if diverged else "mine.md")).open("a") as file:
            file.write("an edit not staged\n")
        status = two.git("status", "--porcelain=v1", "-uall")
        index = two.git("ls-files", "-s", "--", "notes/mine.md", "notes/draft.md")
        mine = (two.root / "notes" / "mine.md").read_bytes()
        head = two.git("rev-parse", "HEAD")

        assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

        assert two.git("rev-parse", "ORIG_HEAD") == head  # as git merge leaves it
        assert two.git("status", "--porcelain=v1", "-uall") == status
        assert two.git("ls-files", "-s", "--", "notes/mine.md", "notes/draft.md") == index
        assert (two.root / "notes" / "mine.md").read_bytes() == mine
        assert (two.root / THEIRS).exists()
        assert two.git("rev-parse", "HEAD") == two.git("rev-parse", "origin/main")
        assert two.git("stash", "list") == ""


def test_a_conflict_git_merge_stops_on_is_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a git older than 2.38 (no merge-tree --write-tree), share runs git's own merge,
    which stops on a conflict: share aborts it, so no note of the other clone stays staged."""
    two = behind(tmp_path, diverged=True)
    conflicting(two)
    status, head = two.git("status", "--porcelain=v1", "-uall"), two.git("rev-parse", "HEAD")

    def an_older_git(config: Config, git_dir: Path, here: str, deadline: float) -> None:
        del config, git_dir, here, deadline

    monkeypatch.setattr(share_module, "merge_upstream", an_older_git)

    with pytest.raises(MemidxError, match="a person must resolve it") as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "share undid its merge" in raised.value.message
    assert two.git("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False) == ""
    assert (two.git("status", "--porcelain=v1", "-uall"), two.git("rev-parse", "HEAD")) == (
        status,
        head,
    )
    assert not (two.root / THEIRS).exists()


def test_a_folder_of_notes_the_merge_replaces_by_a_note_is_not_in_the_way(
    tmp_path: Path,
) -> None:
    """The other clone replaced the folder notes/d/ (its notes tracked here too) by a note
    notes/d: git's merge removes the folder and writes the note, as it should; share used to
    call the tracked folder an ignored file and tell the person to delete it."""
    one, two = clones(tmp_path)
    one.note("d/in.md", "In", "a note in a folder")
    one.commit("a folder")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q", "--no-rebase", "--no-edit")
    one.git("rm", "-q", "notes/d/in.md")
    one.note("d", "D", "the folder became one note")
    one.commit("the folder replaced by a note")
    one.git("push", "-q", "origin", "main")
    two.note("ours.md", "Ours", "a note two has not pushed")
    two.commit("two's note")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert (two.root / "notes" / "d").is_file()
    assert two.git("status", "--porcelain=v1", "-uall").strip() == ""


def test_a_folder_of_untracked_files_made_after_the_look_stops_share_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of the person's untracked files appears where the merge adds a note after
    the look (a race): git refuses to bring the merge into the work tree, share moves its
    branch back, and trying again cannot mend that; nothing merged, the folder as it was."""
    two = behind(tmp_path, diverged=True)
    folder_in_the_way(two)
    before = state(two)
    pauses: list[float] = []

    def look_that_missed(
        config: Config, head: str, tree: str
    ) -> tuple[list[str], tuple[tuple[str, bool], ...]]:
        del config, head, tree
        return [], ()  # nor did it note where the merge writes: git read-tree refuses

    monkeypatch.setattr(share_check, "_in_the_way", look_that_missed)

    with pytest.raises(MemidxError, match="share undid it") as raised:
        share(load_config(two.root, env={}), sleep=pauses.append)

    assert pauses == []
    assert THEIRS in raised.value.message
    assert state(two) == before
    assert (two.root / THEIRS / "x.md").read_text() == "mine\n"


def test_an_ignored_file_where_the_merge_needs_a_folder_stops_share(tmp_path: Path) -> None:
    """The other clone added notes/d/x.md where this clone holds an ignored file notes/d:
    git's merge replaced the file by the folder without a word, and share let it."""
    one, two = clones(tmp_path)
    one.note("d/x.md", "X", "a note in a folder")
    one.commit("a folder")
    one.git("push", "-q", "origin", "main")
    (two.root / ".git" / "info" / "exclude").write_text(".memidx/\nnotes/d\n")
    (two.root / "notes" / "d").write_text("the person's ignored file\n")
    two.note("ours.md", "Ours", "a note two has not pushed")
    two.commit("two's note")
    before = state(two)

    with pytest.raises(MemidxError, match=r"notes/d \(ignored\)") as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "git status --ignored" in raised.value.hint
    assert state(two) == before
    assert (two.root / "notes" / "d").read_text() == "the person's ignored file\n"


def test_a_folder_holding_ignored_files_is_named_with_one_of_them(tmp_path: Path) -> None:
    """Where the merge adds the note notes/d, this clone has a folder notes/d holding only
    ignored files: the line said `notes/d (ignored)`, and `git status` shows none of them."""
    one, two = clones(tmp_path)
    one.note("d", "D", "a note named d")
    one.commit("a note d")
    one.git("push", "-q", "origin", "main")
    (two.root / ".git" / "info" / "exclude").write_text(".memidx/\n*.swp\n")
    (two.root / "notes" / "d").mkdir()
    (two.root / "notes" / "d" / "draft.swp").write_text("an editor's swap file\n")

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "notes/d (a folder holding ignored files: notes/d/draft.swp)" in raised.value.message
    assert "git status --ignored" in raised.value.hint
    assert (two.root / "notes" / "d" / "draft.swp").exists()


def test_merge_ff_false_still_gets_a_merge_commit(tmp_path: Path) -> None:
    """share's merge is made with plumbing now; `merge.ff = false` still asks for a merge
    commit where a fast-forward would do, as git merge made one."""
    two = behind(tmp_path, diverged=False)
    two.git("config", "merge.ff", "false")
    head = two.git("rev-parse", "HEAD").strip()
    theirs = two.git("ls-remote", "origin", "main").split()[0]

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert two.git("rev-parse", "HEAD^1", "HEAD^2").split() == [head, theirs]
    assert (two.root / THEIRS).exists()
    assert two.git("status", "--porcelain=v1", "--", "notes") == ""


def test_without_a_shell_share_brings_the_work_tree_to_its_merge_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where memidx has no POSIX shell (Windows) the git command run with HEAD's move is not
    run at all: share's merge moved HEAD and left the index and the work tree behind, the
    other clone's note staged as deleted."""
    monkeypatch.setattr(children, "SHELL", None)
    two = behind(tmp_path, diverged=True)
    (two.root / "notes" / "mine.md").write_text("the person's draft\n")
    two.git("add", "notes/mine.md")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert two.git("status", "--porcelain=v1", "--", "notes") == "A  notes/mine.md\n"
    assert (two.root / THEIRS).exists()


def test_a_merge_share_cannot_undo_says_the_command_that_finishes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git refuses to bring the merge into the work tree and HEAD cannot go back (another git
    moved it meanwhile: here a stand-in git refuses the move back): the line says the merge's
    files show as staged deletions, and its hint's command brings the work tree to it."""
    git = shutil.which("git")
    assert git is not None
    folder = tmp_path / "stand-in"
    folder.mkdir()
    (folder / "git").write_text(
        "#!/bin/sh\n"  # the copy's read-tree before the move refused: the follow decides
        'if [ "$1" = read-tree ]; then case " $* " in *" -u "*) [ -e "$0.once" ] || { '
        ': > "$0.once"; echo "error: a file came in the way" >&2; exit 1; } ;; *) exit 1 ;; '
        "esac; fi\n"
        'case "$3" in *"(undone)") exit 1 ;; esac\n'
        f'exec {git} "$@"\n'
    )
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(folder), prepend=os.pathsep)
    two = behind(tmp_path, diverged=True)

    with pytest.raises(GitError, match="HEAD moved on before share could undo it") as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "error: a file came in the way" in raised.value.message
    command = raised.value.hint.split("then ", 1)[1]
    assert command.startswith("git read-tree --no-recurse-submodules -m -u ")
    two.git(*command.split()[1:])
    assert two.git("status", "--porcelain=v1", "--", "notes") == ""
    assert (two.root / THEIRS).exists()


def test_a_name_with_a_newline_is_named_on_the_one_line(tmp_path: Path) -> None:
    """A path git lists with -z may hold a newline: it was printed as is, splitting the line."""
    one, two = clones(tmp_path)
    odd = "notes/two\nlines.md"
    (one.root / odd).write_text("first\n")
    one.commit("odd")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q")
    (one.root / odd).write_text("first\nthe other clone's edit\n")
    one.commit("edit")
    one.git("push", "-q", "origin", "main")
    (two.root / odd).write_text("first\nthe person's edit\n")
    before = state(two)

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "notes/two\\nlines.md (not staged)" in raised.value.message
    assert "\n" not in raised.value.message + raised.value.hint
    assert state(two) == before
