"""share's move of a remembered twin note aside (memidx/memory/twins.py) read the note's bytes
at its old name unguarded: a note the person deleted (or replaced by a folder) between share's
look and that read ended share in a traceback (FileNotFoundError). Now such a note is left to
git's merge, as one with uncommitted changes is, and nothing is committed for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.twins import part_twins
from tests.git_shims import put_git_first
from tests.helpers import NotesRepo
from tests.memories import remembered_apart

# a `git` first on PATH: right after share's last look at the note (`git status` of it), the
# person's `$PERSON` runs
PERSON_AFTER_THE_LOOK = """#!/bin/sh
"$REAL_GIT" "$@"; said=$?
case " $* " in *" status "*) [ -e "$MARK" ] || { : > "$MARK"; eval "$PERSON"; } ;; esac
exit $said
"""


@pytest.mark.parametrize("person", ['rm "$NOTE"', 'rm "$NOTE" && mkdir "$NOTE"'])
def test_a_twin_the_person_deleted_after_the_look_is_left_to_git_s_merge(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, person: str
) -> None:
    main = remembered_apart(repo)
    note = repo.root / "notes" / "build-cache.md"
    put_git_first(
        monkeypatch, tmp_path / "bin", PERSON_AFTER_THE_LOOK,
        MARK=str(tmp_path / "mark"), PERSON=person, NOTE=str(note),
    )  # fmt: skip

    moved = part_twins(load_config(repo.root, env={}))

    monkeypatch.undo()
    assert (tmp_path / "mark").exists()  # the person did act after the look
    assert moved == ()
    assert repo.git("rev-parse", "HEAD").strip() == main  # nothing committed
    assert not (repo.root / "notes" / "build-cache-2.md").exists()
    assert note.is_dir() if "mkdir" in person else not note.exists()  # as the person left it


@pytest.mark.parametrize(
    "person",
    [
        'printf "the person\'s edit\\n" >> "$NOTE"',  # uncommitted: never memidx's to commit
        '"$REAL_GIT" -C "$ROOT" reset -q --hard theirs',  # the remote's note at the name now
    ],
)
def test_a_twin_the_person_changed_after_the_look_is_left_to_git_s_merge(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, person: str
) -> None:
    """The bytes at the old name were moved whatever they were by then: a person's edit made
    after the look was committed under the new name (their uncommitted work, in a commit of
    memidx's), and after a `git reset --hard @{upstream}` the remote's note was moved aside,
    which share then pushed. Only the note as this clone committed it moves."""
    remembered_apart(repo)
    note = repo.root / "notes" / "build-cache.md"
    put_git_first(
        monkeypatch, tmp_path / "bin", PERSON_AFTER_THE_LOOK,
        MARK=str(tmp_path / "mark"), PERSON=person, NOTE=str(note), ROOT=str(repo.root),
    )  # fmt: skip

    moved = part_twins(load_config(repo.root, env={}))

    monkeypatch.undo()
    head = repo.git("rev-parse", "HEAD").strip()
    assert (tmp_path / "mark").exists()  # the person did act after the look
    assert moved == ()
    assert repo.git("log", "-1", "--format=%s", head).strip() == "memidx remember: Build cache"
    assert not (repo.root / "notes" / "build-cache-2.md").exists()
    assert note.exists()  # as the person left it


# the person's `git commit` right after share's last check of the note's bytes (hash-object)
PERSON_AFTER_THE_CHECK = """#!/bin/sh
"$REAL_GIT" "$@"; said=$?
case " $* " in *" hash-object "*) [ -e "$MARK" ] || { : > "$MARK"; eval "$PERSON"; } ;; esac
exit $said
"""


def test_a_twin_the_person_committed_an_edit_of_after_the_check_is_left_to_git_s_merge(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move was built on whatever HEAD was at the move: a person's commit of an edit to
    the note after share checked its bytes was undone by memidx's commit (the note deleted at
    the old name, the bytes before the edit at the new one; the edit left untracked), and
    share pushed that. The move is built only on a HEAD holding the note as it was checked."""
    remembered_apart(repo)
    note = repo.root / "notes" / "build-cache.md"
    person = (
        'printf "the person\'s edit\\n" >> "$NOTE" && "$REAL_GIT" -C "$ROOT" -c user.name=p '
        '-c user.email=p@example.invalid commit -q -m "an edit" -- "$NOTE"'
    )
    put_git_first(
        monkeypatch, tmp_path / "bin", PERSON_AFTER_THE_CHECK,
        MARK=str(tmp_path / "mark"), PERSON=person, NOTE=str(note), ROOT=str(repo.root),
    )  # fmt: skip

    moved = part_twins(load_config(repo.root, env={}))

    monkeypatch.undo()
    assert (tmp_path / "mark").exists()  # the person did act after the check
    assert repo.git("log", "-1", "--format=%s").strip() == "an edit"  # nothing of memidx's
    assert moved == ()
    assert "the person's edit" in repo.git("show", "HEAD:notes/build-cache.md")
    assert not (repo.root / "notes" / "build-cache-2.md").exists()
    assert "the person's edit" in note.read_text()
    assert repo.git("status", "--porcelain").strip() == ""
