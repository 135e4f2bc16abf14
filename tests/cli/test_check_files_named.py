"""`memidx check ... FILES` given a file that names nothing of the memory's clone: a typo, a
file gone, a draft outside the clone. Each passed in silence, exit 0, as if checked and clean
(`memidx check secrets /tmp/draft.md` of a draft holding a token said nothing): each is said
in one line and the check exits 1. A clone reached through a link (`/tmp` a link, as on macOS)
is the clone: its files were left out unchecked, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import NotesRepo

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
CHECKS = ["secrets", "english", "names", "drift", "all"]


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_a_file_named_nowhere_is_said_and_fails_the_check(
    repo: NotesRepo, check: str, where: str
) -> None:
    name = "notes/no such note.md" if where == "relative" else str(repo.root / "notes/gone.md")

    run = repo.memidx("check", check, name)

    assert run.code == 1, run.err
    assert run.err == (
        f"memidx: error: {name}: no such file in {repo.root} (give a file of the clone; a "
        "deletion is checked once staged)\n"
    )


def test_a_file_outside_the_clone_is_said_not_passed_as_clean(
    repo: NotesRepo, tmp_path: Path
) -> None:
    draft = tmp_path / "draft é.md"
    draft.write_text(f"# Draft\n\ntoken = {TOKEN}\n")

    run = repo.memidx("check", "secrets", str(draft))

    assert run.code == 1, run.err
    assert f"memidx: error: {draft}: not in the memory's clone {repo.root}" in run.err


def test_a_note_named_through_a_link_to_the_clone_is_checked(
    repo: NotesRepo, tmp_path: Path
) -> None:
    repo.write("notes/deploy.md", f"# Deploy\n\ntoken = {TOKEN}\n")
    repo.git("add", "notes/deploy.md")
    (tmp_path / "via").symlink_to(repo.root)

    run = repo.memidx("check", "secrets", str(tmp_path / "via" / "notes" / "deploy.md"))

    assert run.code == 1, run.err
    assert run.out == "notes/deploy.md:3: github-token\n"


def test_a_deletion_staged_and_a_file_the_index_alone_holds_are_files_of_the_clone(
    repo: NotesRepo,
) -> None:
    repo.note("gone.md", "Gone soon", "A note about the deploy.")
    repo.note("kept.md", "Kept", "A note about the build.")
    repo.commit()
    repo.git("rm", "-q", "notes/gone.md")
    (repo.root / "notes" / "kept.md").unlink()  # the index still holds it

    run = repo.memidx("check", "all", "notes/gone.md", "notes/kept.md")

    assert run.code == 0, run.err
