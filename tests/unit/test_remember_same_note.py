"""Which file a `remember` of a note already on disk takes as its own (memidx.memory.remember):
the very note, byte for byte, kept uncommitted by a `remember` whose commit failed or already
committed as it is; never a person's uncommitted edit of a committed note, which the commit
that followed took into history as memidx's, undoing what the person had committed, nor a
note whose deletion the person staged."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from memidx.config import load_config
from memidx.memory import note_file, note_state
from tests.helpers import NotesRepo

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full.\n"
EDITED = TEXT.replace("was full", "was full of logs")


def _written(repo: NotesRepo) -> str:
    config = load_config(repo.root, env={})
    return note_file.write_new(config, PurePosixPath("notes"), "disk-full", TEXT)[0]  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("committed", "staged", "ref"),
    [
        (None, (), "notes/disk-full.md"),  # kept by a remember whose commit failed
        (None, ("add",), "notes/disk-full.md"),  # and staged since, as it is
        (TEXT, (), "notes/disk-full.md"),  # committed by the remember before
        (EDITED, (), "notes/disk-full-2.md"),  # a person's edit, committed, then undone on disk
        (TEXT, ("rm", "-q", "--cached"), "notes/disk-full-2.md"),  # a deletion staged
        (None, ("edited",), "notes/disk-full-2.md"),  # an edit staged, then undone on disk
    ],
    ids=["never-committed", "staged-as-it-is", "committed-as-it-is", "committed-otherwise",
         "deletion-staged", "edit-staged"],
)  # fmt: skip
def test_a_note_on_disk_is_taken_only_when_head_and_the_index_hold_it_as_it_is_or_not_at_all(
    repo: NotesRepo, committed: str | None, staged: tuple[str, ...], ref: str
) -> None:
    """What a person staged there (a deletion, `git rm --cached`, or an edit) was undone by
    the index's update after the commit."""
    repo.write("README.md", "memory\n")
    if committed is not None:
        repo.write("notes/disk-full.md", committed)
    repo.git("add", "-A")
    repo.git("commit", "-qm", "start")
    repo.write("notes/disk-full.md", TEXT)
    if staged == ("edited",):
        repo.write("notes/disk-full.md", EDITED)
        repo.git("add", "notes/disk-full.md")
        repo.write("notes/disk-full.md", TEXT)
    elif staged:
        repo.git(*staged, "notes/disk-full.md")

    assert _written(repo) == ref
    assert (repo.root / "notes" / "disk-full.md").read_text() == TEXT  # never written over


def test_a_note_in_a_folder_named_like_a_pattern_commits_only_itself(repo: NotesRepo) -> None:
    """`--dir 'a*'`: each path was a pattern to `git add` and `git reset`, so the commit took
    a person's uncommitted edit of notes/ab/<same name> into memidx's, and the commit a note
    found there was answered with was the last to change notes/ab/'s."""
    from memidx.git.commit import commit_paths

    config = load_config(repo.root, env={})
    repo.write("notes/ab/disk-full.md", EDITED)
    repo.write("notes/a*/disk-full.md", TEXT)
    repo.git("add", "-A")
    repo.git("commit", "-qm", "start")
    start = repo.git("rev-parse", "HEAD").strip()
    repo.write("notes/ab/disk-full.md", EDITED + "\nThe person's own line.\n")
    repo.git("commit", "-qam", "the person's")
    repo.write("notes/ab/disk-full.md", EDITED + "\nNot committed yet.\n")
    repo.write("notes/a*/disk-full.md", TEXT + "\nMore.\n")

    commit = commit_paths(config, ["notes/a*/disk-full.md"], "memidx remember: Disk full")

    changed = repo.git("diff-tree", "--no-commit-id", "--name-only", "-r", commit)
    assert changed.splitlines() == ["notes/a*/disk-full.md"]
    assert repo.git("status", "--porcelain", "notes") == " M notes/ab/disk-full.md\n"
    repo.git("reset", "-q", "--hard", "HEAD~1")
    added = note_state.added_by(config, "HEAD", "notes/a*/disk-full.md")
    assert repo.git("rev-parse", added).strip() == start


CRLF = TEXT.replace("full.\n", "full.\r\nOf logs.\r\n")  # a body piped from Windows


@pytest.mark.parametrize(
    ("attributes", "text", "on_disk", "ref"),
    [
        ("* text=auto\n", CRLF, CRLF, "notes/disk-full.md"),  # committed with LF
        ("*.md text eol=crlf\n", TEXT, TEXT.replace("\n", "\r\n"), "notes/disk-full.md"),
        ("", TEXT, TEXT.replace("\n", "\r\n"), "notes/disk-full-2.md"),  # line ends changed
    ],
    ids=["body-with-crlf-normalized", "checked-out-with-crlf", "line-ends-a-person-changed"],
)
def test_a_note_committed_is_compared_as_git_stores_it(
    repo: NotesRepo, attributes: str, text: str, on_disk: str, ref: str
) -> None:
    """Each `remember` again of a note whose body had CRLF wrote a twin under `* text=auto`
    (HEAD holds it with LF), as did one of a note checked out with CRLF."""
    repo.write(".gitattributes", attributes)
    repo.write("notes/disk-full.md", text)
    repo.git("add", "-A")
    repo.git("commit", "-qm", "start")
    repo.write("notes/disk-full.md", on_disk.encode())

    config = load_config(repo.root, env={})
    written = note_file.write_new(config, PurePosixPath("notes"), "disk-full", text)  # pyright: ignore[reportPrivateUsage]

    assert written[0] == ref
