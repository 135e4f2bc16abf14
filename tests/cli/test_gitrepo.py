"""Reading notes out of git: blobs come back whole and in order across `cat-file` batches, a
batch holds a bounded number of bytes, a blob over the size limit is never held even when its
size is not known beforehand, and what git cannot give is an error, never an empty or shortened
note."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.errors import GitError
from memidx.git import repo as gitrepo
from memidx.git.repo import GitRepo, TreeEntry
from tests.helpers import NotesRepo, pipe_reads

NO_LIMIT = 1 << 30


def notes_in_git(tmp_path: Path) -> tuple[GitRepo, list[TreeEntry]]:
    repo = NotesRepo(tmp_path / "memory")
    for i in range(7):
        repo.note(f"n{i}.md", f"Note {i}", "line\n" * (i * 3000))  # up to ~90 kB: several reads
    head = repo.commit()
    git = GitRepo(repo.root)
    return git, git.tree(head, "notes")


@pytest.mark.parametrize(("blobs", "max_bytes"), [(3, 1 << 30), (1000, 40_000)])
def test_blobs_come_back_whole_and_in_order_in_bounded_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blobs: int, max_bytes: int
) -> None:
    git, entries = notes_in_git(tmp_path)
    monkeypatch.setattr(gitrepo, "BATCH_BLOBS", blobs)
    monkeypatch.setattr(gitrepo, "BATCH_BYTES", max_bytes)
    batches: list[int] = []
    run = git.run

    def counting(*args: str, **options: bytes | bool | int | None) -> bytes:
        out = run(*args, **options)  # pyright: ignore[reportArgumentType]
        batches.append(len(out))
        return out

    monkeypatch.setattr(git, "run", counting)
    wanted = list(reversed(entries))

    read = list(git.read_blobs([(e.blob_id, e.size) for e in wanted], NO_LIMIT))

    assert [blob for blob, _, _ in read] == [e.blob_id for e in wanted]
    assert [data for _, _, data in read] == [(git.root / e.path).read_bytes() for e in wanted]
    assert [size for _, size, _ in read] == [e.size for e in wanted]
    assert len(batches) >= 3
    # a batch ends at the blob that reaches the limit, so it holds at most one blob more
    assert max(batches) < max_bytes + max(e.size for e in entries) + 1000


def test_a_blob_git_does_not_have_is_an_error(tmp_path: Path) -> None:
    git, _ = notes_in_git(tmp_path)

    with pytest.raises(GitError, match="cannot read blob"):
        list(git.read_blobs([("0" * 40, 0)], NO_LIMIT))
    with pytest.raises(GitError, match="cannot read blob"):  # also when only its size is asked
        list(git.read_blobs([("0" * 40, 0)], 10))


def test_output_cut_short_is_an_error_not_a_shorter_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git, entries = notes_in_git(tmp_path)
    run = git.run
    monkeypatch.setattr(git, "run", lambda *a, **k: run(*a, **k)[:-100])  # pyright: ignore[reportUnknownLambdaType, reportUnknownArgumentType]

    with pytest.raises(GitError, match="incomplete"):
        list(git.read_blobs([(entries[-1].blob_id, entries[-1].size)], NO_LIMIT))


@pytest.mark.parametrize("known", [True, False], ids=["size known", "size unknown"])
def test_a_blob_over_the_limit_is_never_held_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, known: bool
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    for i in range(12):  # with it in one batch: room for many notes is no room for the dump
        repo.note(f"small{i}.md", f"Small {i}", "a few words " * 100)
    repo.write("notes/dump.md", b"log line\n" * 1_000_000)  # 9 MB, pasted by mistake
    git = GitRepo(repo.root)
    entries = git.tree(repo.commit(), "notes")
    received = pipe_reads(monkeypatch)

    read = list(git.read_blobs([(e.blob_id, e.size if known else 0) for e in entries], 100_000))

    found = {blob: (size, data) for blob, size, data in read}
    assert len(read) == 13 and found[entries[0].blob_id] == (9_000_000, None)
    assert all(found[e.blob_id][1] == (repo.root / e.path).read_bytes() for e in entries[1:])
    assert sum(received) < 1 << 20  # git was stopped at the dump's header, not read and dropped


def test_a_blob_read_twice_in_one_request_is_no_error(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("a.md", "Same", "same words")
    repo.note("b.md", "Same", "same words")
    repo.write("notes/dump.md", b"log line\n" * 100_000)
    git = GitRepo(repo.root)
    same, _, dump = git.tree(repo.commit(), "notes")

    read = list(git.read_blobs([(same.blob_id, 0), (same.blob_id, 0), (dump.blob_id, 0)], 1000))

    contents = [(blob, size, data) for blob, size, data in read if data is not None]
    assert contents == [(same.blob_id, same.size, (repo.root / same.path).read_bytes())] * 2
    assert (dump.blob_id, 900_000, None) in read


def test_a_repository_git_cannot_read_is_an_error_not_an_empty_one(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="nowhere is gone"):
        GitRepo(tmp_path / "nowhere").head()
