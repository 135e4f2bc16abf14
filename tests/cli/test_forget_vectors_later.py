"""A forgotten note's vectors when the forget's own sync did not drop them: its index could not
follow (the next `memidx sync` does), a late git ended it (memidx.memory.forget_landed), or the
forget was made on another clone and arrived by a pull. Each left the vectors of the forgotten
text in the index, and in the vector matrix files, where a rebuild has none."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.git import commit as commit_module
from memidx.git import late
from memidx.git.publish import started
from memidx.memory import head_sync
from tests.cli.test_forget import clones
from tests.cli.test_forget_record_vectors import (
    SECRET,
    assert_as_rebuilt,
    blobs,
    embedded_on_both,
    matrices,
    run,
    turn,
)
from tests.helpers import NotesRepo


def embedded(repo: NotesRepo, models_dir: Path) -> list[bytes]:
    """Two notes indexed and embedded; the vectors, every one in the matrix file."""
    repo.write(".gitignore", ".memidx/\n")
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.note("secret.md", "Secret", SECRET)
    repo.commit("notes")
    run(repo, models_dir, "ingest")
    run(repo, models_dir, "embed")
    before = blobs(repo.root)
    assert len(before) == 2 and all(blob in matrices(repo.root) for blob in before)
    return before


def assert_forgotten(
    repo: NotesRepo, models_dir: Path, tmp_path: Path, before: list[bytes]
) -> None:
    after = blobs(repo.root)
    (forgotten,) = [blob for blob in before if blob not in after]
    assert forgotten not in matrices(repo.root)
    assert all(blob in matrices(repo.root) for blob in after)
    assert_as_rebuilt(repo, models_dir, tmp_path)


def test_a_forget_whose_index_did_not_follow_leaves_no_vector_after_the_sync(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    before = embedded(repo, models_dir)

    def held(config: Config, say: Callable[[str], None] | None = None) -> str | None:
        return f"{config.index_path} is locked by another process"

    with monkeypatch.context() as patched:
        patched.setattr(head_sync, "follow_commit", held)
        failed = repo.memidx("forget", "notes/secret.md")
    assert failed.code == 1 and "the index did not follow" in failed.err, failed.err
    assert blobs(repo.root) == before  # the index holds the note yet

    run(repo, models_dir, "sync")  # as the error says

    assert_forgotten(repo, models_dir, tmp_path, before)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_forget_a_late_git_ended_drops_its_vectors(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    before = embedded(repo, models_dir)
    head = repo.git("rev-parse", "HEAD").strip()
    monkeypatch.setenv("MEMIDX_MODELS_DIR", str(models_dir))
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.setattr(late, "LATE_FLOOR", 0.3)
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.0)
    real_committers = commit_module.committers

    with subprocess.Popen(["sleep", "30"]) as merge:  # stands for a person's `git merge`

        def a_merge_at_the_move(root: Path, *args: frozenset[str]) -> dict[str, str]:
            if repo.git("rev-parse", "HEAD").strip() == head:  # the looks before the move
                return real_committers(root, *args)
            return {str(merge.pid): f"merge {started(str(merge.pid))}"}

        monkeypatch.setattr(commit_module, "committers", a_merge_at_the_move)
        try:
            done = repo.memidx("forget", "notes/secret.md")
        finally:
            merge.kill()

    assert done.code == 0 and "still under way" in done.err, done.err
    assert_forgotten(repo, models_dir, tmp_path, before)


def test_a_note_forgotten_on_another_clone_leaves_its_vectors_there_too(
    tmp_path: Path, models_dir: Path
) -> None:
    one, two, before = embedded_on_both(tmp_path, models_dir)

    run(one, models_dir, "forget", "notes/secret.md")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q")
    run(two, models_dir, "sync")

    assert_forgotten(two, models_dir, tmp_path, before)


def test_a_turn_forgotten_on_another_clone_leaves_no_vector_in_its_matrix_files(
    tmp_path: Path, models_dir: Path
) -> None:
    """A `memidx sync` by hand after the pull starts no embed: the matrix file held the
    forgotten turn's vector until the next one."""
    one, two = clones(tmp_path)
    gone = turn(one, models_dir, "what is the zebra passphrase", SECRET)
    run(one, models_dir, "share")
    two.git("pull", "-q")
    run(two, models_dir, "sync")
    run(two, models_dir, "embed")
    before = blobs(two.root)
    assert all(blob in matrices(two.root) for blob in before)

    run(one, models_dir, "forget", gone)
    run(one, models_dir, "share")
    two.git("pull", "-q")
    run(two, models_dir, "sync")

    assert_forgotten(two, models_dir, tmp_path, before)
