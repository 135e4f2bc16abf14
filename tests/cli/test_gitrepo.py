"""Reading notes out of git: blobs come back whole and in order across `cat-file` batches, a
batch holds a bounded number of bytes, a blob over the size limit is never held even when its
size is not known beforehand, and what git cannot give is an error, never an empty or shortened
note."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx import gitrepo
from memidx.errors import GitError
from memidx.gitrepo import GitRepo, TreeEntry
from memidx.process import Finished
from tests.helpers import NotesRepo

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
    repo.note("small.md", "Small", "a few words")
    repo.write("notes/dump.md", b"log line\n" * 2_000_000)  # 18 MB, pasted by mistake
    repo.note("after.md", "After", "more words")
    git = GitRepo(repo.root)
    entries = git.tree(repo.commit(), "notes")
    received: list[int] = []
    run_process = gitrepo.run_process

    def measured(*args: object) -> Finished:
        done = run_process(*args)  # pyright: ignore[reportArgumentType]
        received.append(len(done.stdout))
        return done

    monkeypatch.setattr(gitrepo, "run_process", measured)

    read = list(git.read_blobs([(e.blob_id, e.size if known else 0) for e in entries], 100_000))

    found = {blob: (size, data) for blob, size, data in read}
    by_path = {e.path: found[e.blob_id] for e in entries}
    assert len(read) == 3 and by_path["notes/dump.md"] == (18_000_000, None)
    for small in ("notes/small.md", "notes/after.md"):
        assert by_path[small][1] == (repo.root / small).read_bytes()
    assert max(received) < 1_000_000  # git's output was cut off, not gathered and dropped


def test_a_repository_git_cannot_read_is_an_error_not_an_empty_one(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="rev-parse failed"):
        GitRepo(tmp_path / "nowhere").head()
