"""The notes of a commit, read for the index: a few notes come from the working tree when a file
there holds exactly the committed content (git's id of it matches), so a hook's usual commit
starts no `git cat-file`; anything else, an edited, missing, special or too large file, comes
from git, and the index always holds what was committed."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from memidx.git.repo import GitRepo
from memidx.index import sources
from memidx.index.sources import GitSource
from tests.helpers import NotesRepo

LIMIT = 1 << 20


def committed(tmp_path: Path) -> tuple[NotesRepo, GitSource, list[str]]:
    repo = NotesRepo(tmp_path / "memory")
    refs = [repo.note(f"n{i}.md", f"Note {i}", f"body {i}\n") for i in range(4)]
    repo.write("notes/twin.md", (repo.root / refs[0]).read_bytes())  # the same blob twice
    refs.append("notes/twin.md")
    head = repo.commit()
    return repo, GitSource(GitRepo(repo.root), head, "notes", LIMIT), refs


def read_all(
    source: GitSource, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, bytes | None], list[list[str]]]:
    """What the source reads for every note, and the blob ids it asked git for."""
    asked: list[list[str]] = []
    read_blobs = source.repo.read_blobs

    def recording(
        blobs: Sequence[tuple[str, int]], max_bytes: int
    ) -> Iterator[tuple[str, int, bytes | None]]:
        asked.append([blob for blob, _ in blobs])
        return read_blobs(blobs, max_bytes)

    monkeypatch.setattr(source.repo, "read_blobs", recording)
    files = source.files()
    return {file.ref: data for file, data in source.read(list(files.values()))}, asked


def test_notes_the_working_tree_holds_unchanged_start_no_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, source, refs = committed(tmp_path)

    read, asked = read_all(source, monkeypatch)

    assert read == {ref: (repo.root / ref).read_bytes() for ref in refs}
    assert [blobs for blobs in asked if blobs] == []


def test_the_committed_content_is_read_whatever_the_working_tree_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, source, refs = committed(tmp_path)
    committed_bytes = {ref: (repo.root / ref).read_bytes() for ref in refs}
    repo.write(refs[0], "edited after the commit\n")  # twin.md still holds n0's content
    (repo.root / refs[1]).unlink()
    (repo.root / refs[2]).unlink()
    os.mkfifo(repo.root / refs[2])  # opening it would block
    (repo.root / refs[3]).unlink()
    (repo.root / refs[3]).symlink_to("n0.md")

    read, asked = read_all(source, monkeypatch)

    assert read == committed_bytes
    from_git = {blob for blobs in asked for blob in blobs}
    # from git: n1 (missing), n2 (a FIFO), n3 (a symlink is not followed); n0 from twin.md
    assert len(from_git) == 3


def test_a_file_over_the_limit_is_never_read_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _, refs = committed(tmp_path)
    big = repo.write("notes/big.md", "x" * 5000)
    head = repo.commit()
    source = GitSource(GitRepo(repo.root), head, "notes", 4096)
    held: list[int] = []  # the size of every file read from the working tree
    read_up_to = sources.read_up_to

    def watching(fd: int, limit: int) -> bytes:
        held.append(os.fstat(fd).st_size)
        return read_up_to(fd, limit)

    monkeypatch.setattr(sources, "read_up_to", watching)

    read, _ = read_all(source, monkeypatch)

    assert read[str(big.relative_to(repo.root))] is None  # over the limit: skipped, not held
    assert held and max(held) <= 4096
    assert read[refs[1]] == (repo.root / refs[1]).read_bytes()


def test_many_notes_go_to_git_in_one_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "WORKTREE_READS", 2)
    repo, source, refs = committed(tmp_path)

    read, asked = read_all(source, monkeypatch)

    assert read == {ref: (repo.root / ref).read_bytes() for ref in refs}
    assert len([blobs for blobs in asked if blobs]) == 1
